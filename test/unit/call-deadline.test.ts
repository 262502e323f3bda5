import { Errors, ServiceBroker, type BrokerOptions } from "moleculer";
import { brokerMiddlewares } from "../../shared/runtime/call-deadline.js";

/**
 * A call that times out leaves nothing behind (issue 16.5): before, the caller's context stayed
 * tracked and its request pending until an answer that never came, and the next shutdown waited
 * the whole SHUTDOWN_TIMEOUT_MS for it.
 */
describe("calls past their time-out", () => {
	const brokers: ServiceBroker[] = [];
	let never: () => void = () => undefined;

	beforeAll(async () => {
		const options: BrokerOptions = { namespace: `deadline-${process.pid}`, transporter: "Fake", logger: false, tracking: { enabled: true, shutdownTimeout: 60000 }, internalMiddlewares: false, middlewares: brokerMiddlewares([]) };
		brokers.push(new ServiceBroker({ ...options, nodeID: "caller" }), new ServiceBroker({ ...options, nodeID: "callee" }), new ServiceBroker({ ...options, nodeID: "lost" }));
		brokers[1]?.createService({
			name: "slow",
			actions: {
				hang: () => new Promise<void>(resolve => (never = resolve))
			}
		});
		brokers[2]?.createService({ name: "lost", actions: { call: () => "never sent" } });
		await Promise.all(brokers.map(b => b.start()));
		await brokers[0]?.waitForServices(["slow", "lost"]);
		// A node whose requests vanish (it died with them): no answer, not even a time-out.
		(brokers[2]?.transit as unknown as { requestHandler: () => Promise<void> }).requestHandler = () => Promise.resolve();
	});

	afterAll(async () => {
		never();
		await Promise.all(brokers.map(b => b.stop()));
	});

	test("a call whose node never answers: RequestTimeoutError, and neither its context nor its pending request stays", async () => {
		const caller = brokers[0] as ServiceBroker & { _trackedContexts: unknown[] };
		await expect(caller.call("lost.call", {}, { timeout: 100 })).rejects.toBeInstanceOf(Errors.RequestTimeoutError);
		expect(caller._trackedContexts).toHaveLength(0);
		expect(caller.transit?.pendingRequests.size).toBe(0);
	});

	test("the callee stops tracking the handler at the time-out too, though the handler runs on", async () => {
		const callee = brokers[1] as ServiceBroker;
		const service = callee.getLocalService("slow") as unknown as { _trackedContexts: unknown[] };
		await expect(callee.call("slow.hang", {}, { timeout: 100 })).rejects.toBeInstanceOf(Errors.RequestTimeoutError);
		expect(service._trackedContexts).toHaveLength(0);
	});

	test("without a time-out of its own, a call gets the broker's requestTimeout, and a count of time-outs", async () => {
		const broker = new ServiceBroker({ logger: false, requestTimeout: 100, metrics: { enabled: true }, internalMiddlewares: false, middlewares: brokerMiddlewares([]) });
		broker.createService({ name: "slow", actions: { hang: () => new Promise<void>(() => undefined), quick: () => "done" } });
		await broker.start();
		try {
			await expect(broker.call("slow.hang")).rejects.toBeInstanceOf(Errors.RequestTimeoutError);
			await expect(broker.call("slow.quick")).resolves.toBe("done");
			const [series] = broker.metrics.getMetric("moleculer.request.timeout.total")?.snapshot() as { labels: Record<string, unknown>; value: number }[];
			expect(series).toMatchObject({ labels: { service: "slow", action: "slow.hang" }, value: 1 });
		} finally {
			await broker.stop();
		}
	});
});
