/** What the transcription rules need, handed to the plain modules by the service (and by tests). */
export interface AiDeps {
	/** The AI setting's effective value (contract 4.12), secrets included. */
	aiSetting(): Promise<Record<string, unknown>>;
	/** Time limit of the provider call (contract 12). */
	providerTimeoutMs: number;
}
