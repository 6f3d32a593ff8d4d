export { connectToolActionPort, type ToolActionPortAddress } from "./connect.js";
export { BridgeLimits, SocketRefusal } from "./limits.js";
export { type ServedToolActionPort, serveToolActionPort } from "./socket.js";
export { exposeToolActionPort } from "./worker.js";
