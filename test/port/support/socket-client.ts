/**
 * Another process using a served port: connects with the socket path from argv and the token from
 * RAES_PORT_TOKEN, runs one admit→dispatch→complete and one admit→cancel, prints the answers as JSON.
 */
import { connectToolActionPort } from "../../../src/index.js";
import { outcomeFor, requestFor } from "../../helpers/tool-requests.js";

const [socketPath] = process.argv.slice(2);
const port = await connectToolActionPort({
  socketPath: socketPath ?? "",
  token: process.env.RAES_PORT_TOKEN ?? "",
});
const answers: unknown[] = [];
const a = await port.admit(requestFor(port, "from-child"));
answers.push(a);
if (a.admitted) {
  answers.push(await port.dispatch(a.actionInstanceId));
  answers.push(await port.complete(a.actionInstanceId, outcomeFor(port, a.actionInstanceId)));
}
const b = await port.admit(requestFor(port, "from-child-2"));
answers.push(b);
if (b.admitted) answers.push(await port.cancel(b.actionInstanceId));
process.stdout.write(
  `${JSON.stringify({ pid: process.pid, invocation: port.invocationActionInstanceId, answers })}\n`,
);
