import http from "node:http";

/**
 * A client of the live stream (`GET /api/v1/sse`, contract 17) over node:http, reading the
 * stream as it comes: comment lines (`: connected`, `: heartbeat`) and `data:` events, parsed.
 */

export interface SseData {
	type: string;
	name: string;
	parent?: string;
}

export interface SseStream {
	status: number;
	headers: http.IncomingHttpHeaders;
	/** Comment lines so far, without the colon (`connected`, `heartbeat`). */
	comments: string[];
	/** Data events so far, in order. */
	events: SseData[];
	/** The body of a refused request (status other than 200), once `ended`. */
	refusal: string;
	/** Once ended: whether the response ended as HTTP says it should (its last chunk came), not cut. */
	complete: boolean;
	/** Resolves when the server ends the stream (or the connection drops). */
	ended: Promise<void>;
	/** Resolves once `predicate` holds of the stream; rejects if the stream ends first. */
	until(what: string, predicate: (stream: SseStream) => boolean, timeoutMs?: number): Promise<void>;
	close(): void;
}

/** Opens a stream with `Authorization: Bearer <token>` (none when undefined); resolves with the response head. */
export function openSse(baseUrl: string, token: string | undefined): Promise<SseStream> {
	return new Promise((resolve, reject) => {
		const headers: http.OutgoingHttpHeaders = { Accept: "text/event-stream" };
		if (token !== undefined) headers.Authorization = `Bearer ${token}`;
		const req = http.get(`${baseUrl}/api/v1/sse`, { headers, agent: false }, res => {
			let buffer = "";
			let done = false;
			const waiters = new Set<() => void>();
			const changed = () => {
				for (const waiter of [...waiters]) waiter();
			};
			const ended = new Promise<void>(resolveEnd => {
				const finish = () => {
					stream.complete = res.complete;
					done = true;
					changed();
					resolveEnd();
				};
				res.once("end", finish);
				res.once("close", finish);
				res.once("error", finish);
			});
			const stream: SseStream = {
				status: res.statusCode ?? 0,
				headers: res.headers,
				comments: [],
				events: [],
				refusal: "",
				complete: false,
				ended,
				until(what, predicate, timeoutMs = 60000) {
					return new Promise<void>((resolveWait, rejectWait) => {
						const check = () => {
							if (predicate(stream)) {
								waiters.delete(check);
								clearTimeout(timer);
								resolveWait();
							} else if (done) {
								waiters.delete(check);
								clearTimeout(timer);
								rejectWait(new Error(`the stream ended before ${what}; events: ${JSON.stringify(stream.events)}`));
							}
						};
						const timer = setTimeout(() => {
							waiters.delete(check);
							rejectWait(new Error(`timed out waiting for ${what}; events: ${JSON.stringify(stream.events)}`));
						}, timeoutMs);
						waiters.add(check);
						check();
					});
				},
				close() {
					req.destroy();
				}
			};
			res.setEncoding("utf8");
			res.on("data", (chunk: string) => {
				if (stream.status !== 200) {
					stream.refusal += chunk;
					return;
				}
				buffer += chunk;
				let end: number;
				while ((end = buffer.indexOf("\n\n")) !== -1) {
					const message = buffer.slice(0, end);
					buffer = buffer.slice(end + 2);
					for (const line of message.split("\n")) {
						if (line.startsWith(":")) stream.comments.push(line.slice(1).trim());
						else if (line.startsWith("data: ")) stream.events.push(JSON.parse(line.slice(6)) as SseData);
					}
				}
				changed();
			});
			resolve(stream);
		});
		req.once("error", reject);
	});
}
