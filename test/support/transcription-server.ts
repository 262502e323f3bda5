import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * An OpenAI-compatible transcription endpoint on loopback (`POST /v1/audio/transcriptions`):
 * it checks the bearer key, parses the multipart body for real and records what it received.
 */

export const TRANSCRIPTION_API_KEY = "sk-local-test-0123456789";
const API_KEY = TRANSCRIPTION_API_KEY;

export interface Received {
	path: string;
	authorization: string;
	model: string;
	language: string | null;
	prompt: string | null;
	responseFormat: string | null;
	filename: string;
	fileType: string;
	bytes: Buffer;
}

/** `hold` keeps the response open until `release()`. */
export type Mode = "ok" | "error" | "not-json" | "hold";

export class TranscriptionServer {
	readonly received: Received[] = [];
	mode: Mode = "ok";
	private held: ServerResponse[] = [];
	private server: Server;

	constructor() {
		this.server = createServer((req, res) => void this.handle(req, res));
	}

	async start(): Promise<string> {
		await new Promise<void>(resolve => this.server.listen(0, "127.0.0.1", resolve));
		return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1/`;
	}

	release(): void {
		for (const res of this.held.splice(0)) this.answer(res);
	}

	async stop(): Promise<void> {
		this.server.closeAllConnections();
		await new Promise(resolve => this.server.close(resolve));
	}

	private answer(res: ServerResponse): void {
		if (res.destroyed) return;
		res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ text: "Buy milk and call Anna." }));
	}

	private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const chunks: Buffer[] = [];
		for await (const chunk of req) chunks.push(chunk as Buffer);
		if (req.headers.authorization !== `Bearer ${API_KEY}`) {
			res.writeHead(401, { "Content-Type": "application/json" }).end(JSON.stringify({ error: { message: "bad key" } }));
			return;
		}
		const form = await new Request("http://provider.local/", {
			method: "POST",
			headers: { "content-type": req.headers["content-type"] ?? "" },
			body: Buffer.concat(chunks)
		}).formData();
		const file = form.get("file") as File;
		this.received.push({
			path: req.url ?? "",
			authorization: req.headers.authorization,
			model: form.get("model") as string,
			language: form.get("language") as string | null,
			prompt: form.get("prompt") as string | null,
			responseFormat: form.get("response_format") as string | null,
			filename: file.name,
			fileType: file.type,
			bytes: Buffer.from(await file.arrayBuffer())
		});
		switch (this.mode) {
			case "ok":
				return this.answer(res);
			case "error":
				res.writeHead(500, { "Content-Type": "application/json" }).end(JSON.stringify({ error: { message: `upstream broke, key ${API_KEY}` } }));
				return;
			case "not-json":
				res.writeHead(200, { "Content-Type": "text/html" }).end("<html>gateway</html>");
				return;
			case "hold":
				this.held.push(res);
				return;
		}
	}
}
