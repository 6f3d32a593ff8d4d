// An unauthenticated flood against a served port, run as its own process so its sockets and
// buffers are not counted in the server's memory. argv: socket path, connections, how many of
// them send `bytes` bytes without a newline, and how many may stay open for the flood to count as
// standing. It prints one JSON line when every connection is made and the server has closed all
// but that many, then another once the server has closed them all (or stdin closes), and exits.
import { connect } from "node:net";

const [socketPath, total, senders, bytes, standing] = process.argv.slice(2);
const count = Number(total);
const sending = Number(senders);
const payload = Buffer.alloc(Number(bytes), 0x61);
const stats = { connected: 0, closedByServer: 0, retries: 0, refusals: {} };
const open = new Set();
let made = 0;

function opened() {
  return new Promise((resolve) => {
    const attempt = () => {
      const socket = connect(socketPath);
      let connected = false;
      socket.on("connect", () => {
        connected = true;
        stats.connected += 1;
        open.add(socket);
        if (made++ < sending) socket.write(payload);
        resolve();
      });
      socket.setEncoding("utf8");
      socket.on("data", (line) => {
        let code = "unreadable";
        try {
          code = JSON.parse(line.split("\n")[0]).error;
        } catch {}
        stats.refusals[code] = (stats.refusals[code] ?? 0) + 1;
      });
      socket.on("error", (error) => {
        // A full accept queue answers EAGAIN; a patient client tries again.
        if (!connected && error.code === "EAGAIN") {
          stats.retries += 1;
          setTimeout(attempt, 5);
        }
      });
      socket.on("close", () => {
        if (!connected) return;
        open.delete(socket);
        stats.closedByServer += 1;
        if (stats.closedByServer === count) finish();
      });
    };
    attempt();
  });
}

function finish() {
  process.stdout.write(`${JSON.stringify({ done: true, ...stats, stillOpen: open.size })}\n`);
  process.exit(0);
}

// Sixty-four connections in flight at a time: a full accept queue is only slower, not refused.
let next = 0;
async function worker() {
  while (next < count) {
    next += 1;
    await opened();
  }
}
await Promise.all(Array.from({ length: 64 }, worker));
while (open.size > Number(standing)) await new Promise((resolve) => setTimeout(resolve, 5));
process.stdout.write(`${JSON.stringify({ ready: true, ...stats, stillOpen: open.size })}\n`);
process.stdin.on("end", finish);
process.stdin.resume();
