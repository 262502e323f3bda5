import type { Readable } from "node:stream";
import type { AiDeps } from "./ai-deps.js";
import { transcribeWithOpenAi } from "./openai-transcriber.js";
import { parseTranscribeRequest } from "./transcribe-request.js";
import { resolveTranscriptionTarget } from "./transcription-provider.js";

/** Transcribe (contract 12): the request's audio checked, the provider of the AI setting resolved, its text. */
export async function transcribe(deps: AiDeps, params: Record<string, unknown>, content: Readable | null): Promise<string> {
	const audio = await parseTranscribeRequest(params, content);
	const target = resolveTranscriptionTarget(await deps.aiSetting());
	return transcribeWithOpenAi(target, audio, deps.providerTimeoutMs);
}
