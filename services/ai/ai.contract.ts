import { defineApiAction } from "../../shared/contract.js";

/** The AI service's published boundary: the transcription operation of the route table. */
export const aiActions = {
	transcribe: defineApiAction("ai.transcribe")
} as const;
