import { randomUUID } from "node:crypto";
import type { Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { onEvent } from "../../../shared/contract.js";
import { addressRule } from "../../../shared/net/address-guard.js";
import { errorLog } from "../../../shared/runtime/log-error.js";
import { documentsOf, resourcesOf } from "../../../shared/runtime/resources.js";
import { authEvents } from "../auth.contract.js";
import { WEBHOOK_DELIVERIES, WEBHOOK_LANES, type DeliveryDoc, type LaneDoc } from "./delivery-doc.js";
import { DELIVERY_SCHEDULE, type DeliverySchedule } from "./delivery-schedule.js";
import { dueWebhooks, forgetFinished, queueAgeMs, queueLagMs, removeRetired, serveLane, type WorkerDeps } from "./delivery-worker.js";
import { postWebhook } from "./post-webhook.js";
import { ensureWebhookIndexes } from "./webhook-indexes.js";
import { WEBHOOKS, type WebhookDoc } from "./webhook-doc.js";
import { indexesMixin } from "../../../shared/runtime/indexes-mixin.js";

/**
 * The webhook delivery worker (contract 17), a service of its own so that it runs where
 * `SERVICES` puts it: inside the one process of the embedded default, or alone in its own
 * processes (`SERVICES=webhooks`), as many as the load needs. Its replicas share the work
 * through the document store alone (leases per webhook, attempts taken by conditional writes,
 * delivery-worker.ts); they need neither each other nor the auth service to deliver.
 */

interface WebhooksSettings extends ServiceSettingSchema {
	/** How often due deliveries are looked for (also at once when deliveries are recorded). */
	pollMs: number;
	/** Time allowed for one attempt, redirects included (contract 17: 10 s). */
	attemptTimeoutMs: number;
	/** A lane's lease; renewed before each attempt, so longer than one. */
	leaseMs: number;
	/** Lanes (webhooks) served at once by one worker. */
	concurrency: number;
	schedule: DeliverySchedule;
}

interface WebhooksVars {
	/** Epoch ms; tests replace it to step through the back-off. */
	clock: () => number;
	holder: string;
	/** Lanes being served, by webhook id. */
	serving: Map<string, Promise<void>>;
	scanning?: Promise<void>;
	queuedScan?: Promise<Promise<void>[]>;
	pollTimer?: NodeJS.Timeout;
	housekeepingTimer?: NodeJS.Timeout;
	stopping?: boolean;
}

interface WebhooksMethods {
	workerDeps(): WorkerDeps;
	/** Looks for due deliveries and serves their lanes; resolves once those lanes are served (tests await it). */
	deliverDue(): Promise<void>;
	/** Starts serving the due lanes not yet served (up to `concurrency`); the lanes, served or being served. */
	startDueLanes(): Promise<Promise<void>[]>;
	/** The queue-age gauge, finished deliveries past their keeping time, and drained webhooks of deleted users. */
	housekeeping(): Promise<void>;
}

type WebhooksThis = Service<WebhooksSettings> & WebhooksVars & WebhooksMethods;

const ATTEMPTED = "memos.webhook.deliveries.attempted";
const SUCCEEDED = "memos.webhook.deliveries.succeeded";
const FAILED = "memos.webhook.deliveries.failed";
const DROPPED = "memos.webhook.deliveries.dropped";
const QUEUE_AGE = "memos.webhook.queue.age";
const QUEUE_LAG = "memos.webhook.queue.lag";
const COUNTERS = { attempted: ATTEMPTED, succeeded: SUCCEEDED, failed: FAILED, dropped: DROPPED } as const;
const HOUSEKEEPING_MS = 5000;

const WebhooksService: ServiceSchema<WebhooksSettings, WebhooksMethods, WebhooksVars> = {
	name: "webhooks",
	mixins: [indexesMixin(ensureWebhookIndexes)],

	settings: {
		pollMs: 1000,
		attemptTimeoutMs: 10_000,
		leaseMs: 60_000,
		concurrency: 16,
		schedule: DELIVERY_SCHEDULE
	},

	events: {
		...onEvent(authEvents.webhookDeliveriesRecorded, function (this: WebhooksThis) {
			void this.deliverDue();
		})
	},

	methods: {
		workerDeps(): WorkerDeps {
			const documents = documentsOf(this.broker);
			const allowedAddress = addressRule(resourcesOf(this.broker).config.linkMetadataAllowPrivateNetworks);
			const metrics = this.broker.isMetricsEnabled() ? this.broker.metrics : null;
			return {
				webhooks: documents.collection<WebhookDoc>(WEBHOOKS),
				deliveries: documents.collection<DeliveryDoc>(WEBHOOK_DELIVERIES),
				lanes: documents.collection<LaneDoc>(WEBHOOK_LANES),
				holder: this.holder,
				now: () => this.clock(),
				schedule: this.settings.schedule,
				leaseMs: this.settings.leaseMs,
				post: (url, headers, body) => postWebhook(url, headers, body, { timeoutMs: this.settings.attemptTimeoutMs, allowedAddress }),
				count: outcome => metrics?.increment(COUNTERS[outcome])
			};
		},

		deliverDue(): Promise<void> {
			if (this.stopping) return Promise.resolve();
			// One scan at a time, and at most one waiting behind it: asks meanwhile join that one.
			this.queuedScan ??= (this.scanning ?? Promise.resolve()).then(() => {
				this.queuedScan = undefined;
				return this.startDueLanes();
			});
			const scan = this.queuedScan;
			this.scanning = scan.then(
				() => undefined,
				(err: unknown) => this.logger.warn(errorLog(err), "looking for due webhook deliveries failed; retrying at the next poll")
			);
			return scan.then(
				lanes => Promise.all(lanes).then(() => undefined),
				() => undefined
			);
		},

		async startDueLanes(): Promise<Promise<void>[]> {
			const deps = this.workerDeps();
			const lanes: Promise<void>[] = [];
			// Twice the lanes it serves: some found may be held by other workers.
			for (const webhookId of await dueWebhooks(deps, 2 * this.settings.concurrency)) {
				const serving = this.serving.get(webhookId);
				if (serving !== undefined) {
					lanes.push(serving);
					continue;
				}
				if (this.serving.size >= this.settings.concurrency) break;
				const lane = serveLane(deps, webhookId)
					.then(
						() => undefined,
						(err: unknown) => this.logger.warn({ ...errorLog(err), webhookId }, "serving a webhook's deliveries failed; retrying at the next poll")
					)
					.finally(() => this.serving.delete(webhookId));
				this.serving.set(webhookId, lane);
				lanes.push(lane);
			}
			return lanes;
		},

		async housekeeping(): Promise<void> {
			const deps = this.workerDeps();
			if (this.broker.isMetricsEnabled()) {
				this.broker.metrics.set(QUEUE_AGE, (await queueAgeMs(deps)) / 1000);
				this.broker.metrics.set(QUEUE_LAG, (await queueLagMs(deps)) / 1000);
			}
			await forgetFinished(deps);
			await removeRetired(deps);
		}
	},

	created() {
		this.clock = () => Date.now();
		this.holder = `${this.broker.nodeID}/${randomUUID()}`;
		this.serving = new Map();
		if (!this.broker.isMetricsEnabled()) return;
		const metrics = this.broker.metrics;
		metrics.register({ type: "counter", name: ATTEMPTED, description: "Webhook delivery attempts started" });
		metrics.register({ type: "counter", name: SUCCEEDED, description: "Webhook deliveries answered 2xx" });
		metrics.register({ type: "counter", name: FAILED, description: "Webhook delivery attempts that failed (retried, or dropped after 24 hours)" });
		metrics.register({ type: "counter", name: DROPPED, description: "Webhook deliveries dropped after 24 hours of failed attempts" });
		metrics.register({ type: "gauge", name: QUEUE_AGE, unit: "second", description: "Age of the oldest pending webhook delivery (0 when none): alert when it grows" });
		metrics.register({ type: "gauge", name: QUEUE_LAG, unit: "second", description: "How long the most overdue webhook delivery has been due (0 when none): the workers are not keeping up" });
		// Every series exists from the start, so alerts and dashboards see zeros rather than nothing.
		for (const name of Object.values(COUNTERS)) metrics.increment(name, undefined, 0);
		for (const name of [QUEUE_AGE, QUEUE_LAG]) metrics.set(name, 0);
	},

	async started() {
		this.pollTimer = setInterval(() => void this.deliverDue(), this.settings.pollMs);
		this.pollTimer.unref();
		this.housekeepingTimer = setInterval(() => {
			this.housekeeping().catch((err: unknown) => this.logger.warn(errorLog(err), "webhook queue housekeeping failed"));
		}, HOUSEKEEPING_MS);
		this.housekeepingTimer.unref();
		void this.deliverDue();
	},

	async stopped() {
		this.stopping = true;
		clearInterval(this.pollTimer);
		clearInterval(this.housekeepingTimer);
		await this.scanning;
		await Promise.all(this.serving.values());
	}
};

export default WebhooksService;
