import { Readable } from "node:stream";
import { ServiceBroker } from "moleculer";
import { aiActions } from "../../services/ai/ai.contract.js";
import AiService from "../../services/ai/ai.service.js";
import type { Caller } from "../../shared/caller.js";
import { broadcast, call, STREAM_LENGTH_PARAM } from "../../shared/contract.js";
import { loadConfig } from "../../shared/runtime/config.js";
import { attachResources } from "../../shared/runtime/resources.js";
import { settingUpdated, settingValue } from "../../shared/settings/instance-settings.contract.js";
import { fake, fakeService } from "../support/fake-service.js";
import { rejectionOf } from "../support/service-errors.js";
import { TRANSCRIPTION_API_KEY, TranscriptionServer } from "../support/transcription-server.js";

/**
 * The ai service on a bare broker: transcription through its action, with a typed fake of the
 * AI instance setting and the real OpenAI-protocol server of test/support as the provider (the
 * provider's protocol is the point).
 */

const alice = { id: "u-alice", username: "alice", role: "USER" } as Caller;
const provider = new TranscriptionServer();
let aiSetting: Record<string, unknown> = { providers: [] };

let broker: ServiceBroker;

const wav = Buffer.concat([Buffer.from("RIFF"), Buffer.alloc(4), Buffer.from("WAVEfmt "), Buffer.alloc(64, 1)]);
function transcribe(user: Caller | null, audio: Record<string, unknown> = { filename: "note.wav" }, bytes: Buffer = wav) {
	return call(broker, aiActions.transcribe, { audio, [STREAM_LENGTH_PARAM]: bytes.length }, { meta: { user }, stream: Readable.from([bytes]) });
}

/** The AI setting changes, and the instance service says so (the settings cache drops it). */
async function setAi(value: Record<string, unknown>): Promise<void> {
	aiSetting = value;
	await broadcast(broker, settingUpdated, { key: "AI" });
}

beforeAll(async () => {
	const endpoint = await provider.start();
	broker = new ServiceBroker({ logger: false });
	attachResources(broker, { config: loadConfig({ LOG_LEVEL: "silent" }) });
	broker.createService(AiService);
	broker.createService(fakeService("instance", [fake(settingValue, () => aiSetting)]));
	await broker.start();
	aiSetting = {
		providers: [{ id: "local", title: "Local Whisper", type: "OPENAI", endpoint, apiKey: TRANSCRIPTION_API_KEY }],
		transcription: { providerId: "", model: "whisper-large-v3", language: "en" }
	};
});

afterAll(async () => {
	await broker.stop();
	await provider.stop();
});

test("signed-in callers only; an unconfigured transcription is FAILED_PRECONDITION (contract 12)", async () => {
	expect((await rejectionOf(transcribe(null))).type).toBe("UNAUTHENTICATED");
	expect((await rejectionOf(transcribe(alice))).type).toBe("FAILED_PRECONDITION");
	expect(provider.received).toHaveLength(0);
});

test("the audio goes to the provider of the AI setting, with its model and language; its text comes back (contract 12)", async () => {
	await setAi({ ...aiSetting, transcription: { providerId: "local", model: "whisper-large-v3", language: "en" } });
	expect(await transcribe(alice)).toEqual({ text: "Buy milk and call Anna." });
	const [received] = provider.received.slice(-1);
	expect(received).toMatchObject({ path: "/v1/audio/transcriptions", model: "whisper-large-v3", language: "en", filename: "note.wav", fileType: "audio/wav" });
	expect(received?.bytes.equals(wav)).toBe(true);
});

test("bad audio is refused before the provider is called; a provider failure is INTERNAL without the key (contract 12)", async () => {
	const calls = provider.received.length;
	expect((await rejectionOf(transcribe(alice, { filename: "notes.txt", contentType: "text/plain" }))).type).toBe("INVALID_ARGUMENT");
	expect((await rejectionOf(transcribe(alice, { filename: "note.wav" }, Buffer.alloc(0)))).type).toBe("INVALID_ARGUMENT");
	expect(provider.received).toHaveLength(calls);
	provider.mode = "error";
	try {
		const failed = await rejectionOf(transcribe(alice));
		expect(failed.type).toBe("INTERNAL");
		expect(failed.message).not.toContain(TRANSCRIPTION_API_KEY);
	} finally {
		provider.mode = "ok";
	}
});
