/**
 * Jest setup (every test file): each request on a connection of its own (`Connection: close`).
 * A kept-alive socket would otherwise be reused after the server closed it, which happens when
 * this process was busy for longer than the server's keep-alive time (large bodies built on a
 * loaded machine) and fails the request with ECONNRESET. Loopback connections cost next to nothing.
 */
const keepAliveFetch = globalThis.fetch;

globalThis.fetch = (input, init) => {
	const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
	headers.set("connection", "close");
	return keepAliveFetch(input, { ...init, headers });
};
