import type OpenAiSdk from "openai";
import { internal } from "../../shared/errors.js";
import type { Audio } from "./transcribe-request.js";
import type { TranscriptionTarget } from "./transcription-provider.js";

/** Contract 12: the provider call's time limit (designed). */
export const PROVIDER_TIMEOUT_MS = 120_000;

/**
 * POST {endpoint}/audio/transcriptions through the openai SDK: multipart with the file, the
 * model, language and prompt when set, `response_format=json`; returns the answer's `text`.
 * Any provider error, time-out or unusable answer is INTERNAL; the message never carries
 * the key or the provider's answer.
 */
export async function transcribeWithOpenAi(target: TranscriptionTarget, audio: Audio, timeoutMs = PROVIDER_TIMEOUT_MS): Promise<string> {
	// Loaded at the first transcription: the SDK is ~240 modules, start-up time and memory of every process otherwise.
	const { default: OpenAI, toFile } = await import("openai");
	const client = new OpenAI({
		apiKey: target.apiKey,
		baseURL: target.endpoint,
		timeout: timeoutMs,
		// A retry would double the wait and the upload; the caller can retry.
		maxRetries: 0,
		logLevel: "off",
		// Never pick up an organisation or project from the process environment.
		organization: null,
		project: null
	});
	let answer: unknown;
	try {
		answer = await client.audio.transcriptions.create({
			file: await toFile(audio.bytes, audio.filename, { type: audio.contentType }),
			model: target.model,
			...(target.language === "" ? {} : { language: target.language }),
			...(target.prompt === "" ? {} : { prompt: target.prompt }),
			response_format: "json"
		});
	} catch (err) {
		throw internal(`transcription failed: ${describe(OpenAI, err)}`);
	}
	const textValue = typeof answer === "object" && answer !== null ? (answer as { text?: unknown }).text : undefined;
	if (typeof textValue !== "string") throw internal("transcription failed: the provider's answer has no text");
	return textValue;
}

function describe(OpenAI: typeof OpenAiSdk, err: unknown): string {
	if (err instanceof OpenAI.APIConnectionTimeoutError) return "the provider did not answer in time";
	if (err instanceof OpenAI.APIConnectionError) return "the provider cannot be reached";
	if (err instanceof OpenAI.APIError && typeof err.status === "number") return `the provider answered HTTP ${err.status}`;
	return "the provider's answer is not usable";
}
