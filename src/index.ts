export * from "./compiler/index.js";
export * from "./history/index.js";
export * from "./operations/index.js";
export * from "./port/index.js";
export * from "./runtime/index.js";
export * from "./store/index.js";
