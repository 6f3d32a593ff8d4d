export {
  InputFileRefusal,
  type InputFileResult,
  nonRegularInputFile,
  readInputFile,
} from "./file.js";
export { MAX_JSON_DEPTH, parseStrictJson, type StrictJsonResult } from "./json.js";
export { MAX_YAML_DEPTH, yamlDepthExceeded } from "./yaml-depth.js";
