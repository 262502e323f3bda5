import type { Readable } from "node:stream";
import type { Context, ServiceSchema, ServiceSettingSchema } from "moleculer";
import type { RequestMeta } from "../../shared/caller.js";
import { unauthenticated } from "../../shared/errors.js";
import { InstanceSettingsMixin, type InstanceSettingsMethods } from "../../shared/settings/instance-settings.mixin.js";
import type { AiDeps } from "./ai-deps.js";
import { PROVIDER_TIMEOUT_MS } from "./openai-transcriber.js";
import { transcribe } from "./transcribe.js";

interface AiSettings extends ServiceSettingSchema {
	/** Time limit of the provider call (contract 12); tests shorten it. */
	providerTimeoutMs: number;
}

interface AiMethods extends InstanceSettingsMethods {
	deps(): AiDeps;
}

/**
 * Per node: this many transcriptions run at once and this many wait; a burst beyond that is
 * refused (QueueIsFullError, RESOURCE_EXHAUSTED at the gateway) instead of holding ever more
 * audio in memory. Each waiting call holds up to 25 MiB of audio.
 */
export const TRANSCRIBE_CONCURRENCY = 4;
export const TRANSCRIBE_QUEUE = 8;

// The action outlives the provider's own limit, so that limit answers first. (`timeout` is
// read by Moleculer's Timeout middleware; ActionSchema's type lacks it.)
const TRANSCRIBE_LIMITS = {
	timeout: PROVIDER_TIMEOUT_MS + 10_000,
	bulkhead: { enabled: true, concurrency: TRANSCRIBE_CONCURRENCY, maxQueueSize: TRANSCRIBE_QUEUE }
};

/** AIService (contract 12): transcription through the OpenAI-compatible provider of the AI setting. */
const AiService: ServiceSchema<AiSettings, AiMethods> = {
	name: "ai",
	mixins: [InstanceSettingsMixin as Partial<ServiceSchema>],

	settings: {
		providerTimeoutMs: PROVIDER_TIMEOUT_MS
	},

	actions: {
		/** POST /api/v1/ai:transcribe */
		transcribe: {
			...TRANSCRIBE_LIMITS,
			async handler(ctx: Context<Record<string, unknown>, RequestMeta>): Promise<{ text: string }> {
				if (!ctx.meta.user) throw unauthenticated();
				// The call stream is a Readable (Moleculer types it as a plain Stream).
				return { text: await transcribe(this.deps(), ctx.params, (ctx.stream as Readable | null) ?? null) };
			}
		}
	},

	methods: {
		deps(): AiDeps {
			return { aiSetting: () => this.instanceSetting("AI"), providerTimeoutMs: this.settings.providerTimeoutMs };
		}
	}
};

export default AiService;
