import { execFileSync } from "node:child_process";
import path from "node:path";
import { NODE_FLAGS } from "../support/processes.js";

/**
 * The request id reaches code that runs for the request after awaits, timers and nested calls,
 * and nothing outside it, in a process started with the app's flags (the storage's
 * implementation differs with them) and without.
 */
const script = `
import { ServiceBroker } from "moleculer";
import { RequestContextMiddleware, currentRequestId } from ${JSON.stringify(path.resolve("shared/runtime/request-context.ts"))};
const broker = new ServiceBroker({ logger: false, middlewares: [RequestContextMiddleware] });
broker.createService({
	name: "probe",
	actions: {
		async inner() {
			await new Promise(resolve => setTimeout(resolve, 1));
			return currentRequestId();
		},
		async outer(ctx) {
			await null;
			const inner = await ctx.call("probe.inner");
			await new Promise(resolve => setImmediate(resolve));
			return [currentRequestId(), inner];
		}
	}
});
await broker.start();
const answers = await Promise.all(["r-1", "r-2"].map(requestID => broker.call("probe.outer", {}, { requestID })));
process.stdout.write(JSON.stringify({ answers, outside: currentRequestId() ?? null }));
await broker.stop();
`;

test.each([
	["with the flags the app runs with", NODE_FLAGS],
	["without them", []]
])("each request's log lines carry its id, %s", (_name, flags) => {
	const output = execFileSync(process.execPath, [...flags, "--no-warnings", "--input-type=module", "--eval", script], { encoding: "utf8" });
	expect(JSON.parse(output)).toEqual({ answers: [["r-1", "r-1"], ["r-2", "r-2"]], outside: null });
});
