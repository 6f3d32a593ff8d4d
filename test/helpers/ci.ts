/** True under CI (env CI set, as `.ci/run` does): there every suite must run, so a missing prerequisite fails. */
export function isCi(): boolean {
  const ci = process.env.CI;
  return ci !== undefined && ci !== "" && ci !== "0" && ci !== "false";
}
