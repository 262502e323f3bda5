import http from "node:http";

/**
 * The ceiling: plain `node:http` answering every request with the bytes the profile endpoint
 * sends (BENCH_BODY, base64). Prints its port once listening.
 */
const body = Buffer.from(process.env.BENCH_BODY ?? "", "base64");
const headers = { "Content-Type": "application/json; charset=utf-8", "Content-Length": body.length };

const server = http.createServer((_req, res) => {
	res.writeHead(200, headers);
	res.end(body);
});
server.listen(0, "127.0.0.1", () => {
	const address = server.address();
	process.stdout.write(`${JSON.stringify({ port: typeof address === "object" && address ? address.port : 0 })}\n`);
});
process.once("SIGTERM", () => server.close(() => process.exit(0)));
