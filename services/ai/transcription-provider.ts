import { failedPrecondition } from "../../shared/errors.js";

/** Where and how to transcribe, from the AI setting (contract 12, "Provider resolution"). */
export interface TranscriptionTarget {
	endpoint: string;
	apiKey: string;
	model: string;
	language: string;
	prompt: string;
}

export const DEFAULT_TRANSCRIPTION_MODEL = "whisper-1";

type Obj = Record<string, unknown>;

const text = (value: unknown): string => (typeof value === "string" ? value : "");

export function resolveTranscriptionTarget(aiSetting: Obj): TranscriptionTarget {
	const transcription = (aiSetting.transcription ?? {}) as Obj;
	const providerId = text(transcription.providerId);
	if (providerId === "") throw failedPrecondition("transcription is not configured");
	const providers = Array.isArray(aiSetting.providers) ? (aiSetting.providers as Obj[]) : [];
	const provider = providers.find(p => p.id === providerId);
	if (!provider) throw failedPrecondition(`transcription provider ${JSON.stringify(providerId)} is not configured`);
	if (provider.type !== "OPENAI") throw failedPrecondition(`transcription with a ${text(provider.type) || "provider of unknown type"} provider is not supported`);
	return {
		endpoint: text(provider.endpoint).replace(/\/+$/, ""),
		apiKey: text(provider.apiKey),
		model: text(transcription.model) || DEFAULT_TRANSCRIPTION_MODEL,
		language: text(transcription.language),
		prompt: text(transcription.prompt)
	};
}
