import type { Service } from "moleculer";
import type { EmbeddedApp } from "../support/embedded-app.js";
import { TRANSCRIPTION_API_KEY as API_KEY, TranscriptionServer } from "../support/transcription-server.js";
import { authHeaders, startPopulatedApp, type Population } from "../support/users.js";

/**
 * POST /api/v1/ai:transcribe (contract 12) against a real OpenAI-compatible server on
 * loopback that parses the multipart request it receives.
 */

let app: EmbeddedApp & Population;
let provider: TranscriptionServer;
let endpoint: string;
let providerId: string;

beforeAll(async () => {
	provider = new TranscriptionServer();
	endpoint = await provider.start();
	app = await startPopulatedApp(1);
});

afterAll(async () => {
	await app?.stop();
	await provider?.stop();
});

async function transcribe(body: unknown, headers: Record<string, string> = authHeaders(app.users[0]!)) {
	const res = await fetch(`${app.baseUrl}/api/v1/ai:transcribe`, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(body) });
	const text = await res.text();
	return { status: res.status, text, body: JSON.parse(text) as Record<string, unknown> };
}

async function setAi(aiSetting: unknown): Promise<Record<string, unknown>> {
	const res = await fetch(`${app.baseUrl}/api/v1/instance/settings/AI`, { method: "PATCH", headers: authHeaders(app.admin), body: JSON.stringify({ aiSetting }) });
	expect(res.status).toBe(200);
	return ((await res.json()) as { aiSetting: Record<string, unknown> }).aiSetting;
}

// A WAV header: enough for content sniffing.
const WAV = Buffer.concat([Buffer.from("RIFF"), Buffer.from([36, 0, 0, 0]), Buffer.from("WAVEfmt "), Buffer.alloc(64, 1)]);
const audio = (extra: Record<string, unknown> = {}) => ({ audio: { content: WAV.toString("base64"), filename: "note.wav", contentType: "audio/wav", ...extra } });

function aiService(): Service & { settings: { providerTimeoutMs: number } } {
	return app.node.broker.getLocalService("ai") as Service & { settings: { providerTimeoutMs: number } };
}

describe("checks before the provider (contract 12)", () => {
	test("anonymous callers are UNAUTHENTICATED", async () => {
		const res = await transcribe(audio(), {});
		expect(res.status).toBe(401);
		expect(res.body.code).toBe(16);
	});

	test.each([
		["no audio", {}],
		["audio.uri", { audio: { uri: "https://example.com/a.wav", content: "" } }],
		["empty content", { audio: { content: "", filename: "a.wav" } }],
		["content that is not base64", { audio: { content: "***", filename: "a.wav" } }],
		["a filename of 256 characters", audio({ filename: `${"a".repeat(252)}.wav` })],
		["an unsupported content type", audio({ contentType: "text/plain" })],
		["no type, an unknown extension and unrecognisable bytes", { audio: { content: Buffer.from("hello world").toString("base64"), filename: "notes.txt" } }]
	])("%s is INVALID_ARGUMENT", async (_name, body) => {
		const res = await transcribe(body);
		expect(res.status).toBe(400);
		expect(res.body.code).toBe(3);
	});

	test("audio above 25 MiB is INVALID_ARGUMENT", async () => {
		const res = await transcribe({ audio: { content: Buffer.alloc(25 * 1024 * 1024 + 1).toString("base64"), filename: "big.wav" } });
		expect(res.status).toBe(400);
		expect(res.body.code).toBe(3);
	});

	test("without a configured transcription provider: FAILED_PRECONDITION", async () => {
		const res = await transcribe(audio());
		expect(res.status).toBe(400);
		expect(res.body.code).toBe(9);
		expect(provider.received).toHaveLength(0);
	});
});

describe("through the provider", () => {
	beforeAll(async () => {
		const ai = await setAi({
			providers: [{ title: "Local Whisper", type: "OPENAI", endpoint, apiKey: API_KEY }],
			transcription: { model: "whisper-large-v3", language: "en", prompt: "A shopping list." }
		});
		providerId = (ai.providers as { id: string }[])[0]!.id;
		await setAi({ providers: [{ id: providerId, title: "Local Whisper", type: "OPENAI", endpoint, apiKey: "" }], transcription: { providerId, model: "whisper-large-v3", language: "en", prompt: "A shopping list." } });
	});

	beforeEach(() => {
		provider.received.length = 0;
		provider.mode = "ok";
	});

	test("sends the file, model, language and prompt with the bearer key and returns the text", async () => {
		const res = await transcribe(audio({ contentType: "audio/wav; codecs=1" }));
		expect(res.status).toBe(200);
		expect(res.body).toEqual({ text: "Buy milk and call Anna." });
		expect(provider.received).toHaveLength(1);
		const got = provider.received[0]!;
		expect(got).toMatchObject({
			path: "/v1/audio/transcriptions",
			authorization: `Bearer ${API_KEY}`,
			model: "whisper-large-v3",
			language: "en",
			prompt: "A shopping list.",
			responseFormat: "json",
			filename: "note.wav",
			fileType: "audio/wav"
		});
		expect(got.bytes.equals(WAV)).toBe(true);
	});

	test("the content type comes from the filename, else from the bytes; model defaults to whisper-1 and empty fields are not sent", async () => {
		await setAi({ providers: [{ id: providerId, title: "Local Whisper", type: "OPENAI", endpoint, apiKey: "" }], transcription: { providerId } });
		try {
			expect((await transcribe({ audio: { content: WAV.toString("base64"), filename: "memo.webm" } })).status).toBe(200);
			expect((await transcribe({ audio: { content: WAV.toString("base64") } })).status).toBe(200);
			expect(provider.received.map(r => [r.fileType, r.filename, r.model, r.language, r.prompt])).toEqual([
				["audio/webm", "memo.webm", "whisper-1", null, null],
				["audio/wav", "audio.wav", "whisper-1", null, null]
			]);
		} finally {
			await setAi({ providers: [{ id: providerId, title: "Local Whisper", type: "OPENAI", endpoint, apiKey: "" }], transcription: { providerId, model: "whisper-large-v3", language: "en", prompt: "A shopping list." } });
		}
	});

	test("audio of exactly 25 MiB with a 255-character filename reaches the provider whole", async () => {
		const big = Buffer.concat([WAV, Buffer.alloc(25 * 1024 * 1024 - WAV.length, 3)]);
		const filename = `${"a".repeat(251)}.wav`;
		const res = await transcribe({ audio: { content: big.toString("base64"), filename, contentType: "audio/wav" } });
		expect(res.status).toBe(200);
		const got = provider.received[0]!;
		expect({ filename: got.filename, size: got.bytes.length, same: got.bytes.equals(big) }).toEqual({ filename, size: 25 * 1024 * 1024, same: true });
		// 33 MiB of base64 JSON through the gateway, the ai service and the provider: beside two CPU burners
		// and other suites on a 2-core machine it outlasted jest's default 30 s.
	}, 120000);

	test("a provider error is INTERNAL and leaks nothing of the key", async () => {
		provider.mode = "error";
		const res = await transcribe(audio());
		expect(res.status).toBe(500);
		expect(res.body.code).toBe(13);
		expect(res.text).not.toContain(API_KEY);
	});

	test("an answer that is not JSON is INTERNAL", async () => {
		provider.mode = "not-json";
		const res = await transcribe(audio());
		expect(res.status).toBe(500);
		expect(res.body.code).toBe(13);
	});

	test("a provider that does not answer in time is INTERNAL", async () => {
		provider.mode = "hold";
		const saved = aiService().settings.providerTimeoutMs;
		aiService().settings.providerTimeoutMs = 300;
		try {
			const res = await transcribe(audio());
			expect(res.status).toBe(500);
			expect(res.body.code).toBe(13);
		} finally {
			aiService().settings.providerTimeoutMs = saved;
			provider.release();
		}
	});

	test("a GEMINI provider is FAILED_PRECONDITION", async () => {
		await setAi({ providers: [{ id: "gem", title: "Gemini", type: "GEMINI", apiKey: "g-key" }], transcription: { providerId: "gem" } });
		try {
			const res = await transcribe(audio());
			expect(res.status).toBe(400);
			expect(res.body.code).toBe(9);
		} finally {
			await setAi({ providers: [{ id: providerId, title: "Local Whisper", type: "OPENAI", endpoint, apiKey: API_KEY }], transcription: { providerId, model: "whisper-large-v3", language: "en", prompt: "A shopping list." } });
		}
	});

	test("a burst beyond the running and queued calls is RESOURCE_EXHAUSTED; the rest complete", async () => {
		provider.mode = "hold";
		const burst = 4 + 8 + 1;
		const pending = Array.from({ length: burst }, () => transcribe(audio()));
		try {
			const refused = await Promise.race(pending.map(p => p.then(r => (r.status === 429 ? r : new Promise<never>(() => {})))));
			expect(refused.body).toMatchObject({ code: 8, details: [] });
		} finally {
			provider.mode = "ok";
			provider.release();
		}
		const results = await Promise.all(pending);
		expect(results.filter(r => r.status === 429)).toHaveLength(1);
		expect(results.filter(r => r.status === 200)).toHaveLength(burst - 1);
	});
});
