export { capPerCode, MAX_DIAGNOSTICS_PER_CODE } from "./cap.js";
export {
  InputFileRefusal,
  type InputFileResult,
  nonRegularInputFile,
  readInputFile,
} from "./file.js";
export { MAX_JSON_DEPTH, parseStrictJson, type StrictJsonResult } from "./json.js";
export {
  JSON_VALUE_BOUNDS,
  MODEL_VALUE_BOUNDS,
  type ValueBounds,
  valueBoundsExceeded,
  valueDepthExceeds,
} from "./value-bounds.js";
export { MAX_YAML_DEPTH, yamlDepthExceeded } from "./yaml-depth.js";
export { MAX_YAML_ERRORS, MAX_YAML_TOKENS, withoutStackTraces, yamlTokensExceeded } from "./yaml-tokens.js";
