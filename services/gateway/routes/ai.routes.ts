import { MAX_AUDIO_BYTES, aiActions } from "../../ai/ai.contract.js";
import type { RouteSpec } from "../route-spec.js";

/** AIService (contract 12). */
export const aiRoutes: RouteSpec[] = [
	{
		operation: "Transcribe",
		method: "POST",
		path: "/api/v1/ai:transcribe",
		action: aiActions.transcribe,
		access: "signed-in",
		body: "*",
		bytesField: "audio.content",
		bodyLimit: { base64: MAX_AUDIO_BYTES },
		summary: "Transcribes audio (base64, up to 25 MiB) with the provider configured in the AI setting."
	}
];
