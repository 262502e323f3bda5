import { defineApiAction } from "../../shared/contract.js";

/** The AI service's published boundary: the transcription operation of the route table. */

/** The audio a transcription takes bounds its body (the gateway's body limits, contract 19). */
export { MAX_AUDIO_BYTES } from "./transcribe-request.js";
export const aiActions = {
	transcribe: defineApiAction("ai.transcribe")
} as const;
