import { request as httpRequest, type IncomingMessage } from "node:http";
import { DEFAULT_BODY_LIMIT_BYTES, LARGE_BODY_RETRY_AFTER_SECONDS } from "../../services/gateway/body-limits.js";
import { metricsUrl } from "../support/metrics.js";
import { usePopulatedApp } from "../support/populated-app.js";
import { waitFor } from "../support/processes.js";
import { authHeaders } from "../support/users.js";

/** Per-operation body limits from the route table, and at most MAX_LARGE_BODIES large bodies at once. */
const { app, api, users: [alice] } = usePopulatedApp(1, { MAX_LARGE_BODIES: "1", METRICS_ENABLED: "true", METRICS_PORT: "0" });

/** memos_http_large_bodies_in_flight as the metrics endpoint reports it. */
async function largeBodiesInFlight(): Promise<number> {
	const text = await (await fetch(metricsUrl(app()))).text();
	return Number(/^memos_http_large_bodies_in_flight\{[^}]*\} (\S+)$/m.exec(text)?.[1]);
}

const post = (path: string, body: string | Buffer) => fetch(`${app().baseUrl}/api/v1${path}`, { method: "POST", headers: authHeaders(alice()), body });

test("a body over the operation's limit is INVALID_ARGUMENT, refused from its Content-Length", async () => {
	const memo = await api.create(alice(), { content: "limits" });
	const reaction = await post(`/${memo.body.name}/reactions`, JSON.stringify({ reaction: { reactionType: "👍", contentId: memo.body.name, pad: "x".repeat(DEFAULT_BODY_LIMIT_BYTES) } }));
	expect(reaction.status).toBe(400);
	expect(await reaction.json()).toEqual({ code: 3, message: `request body is larger than the ${DEFAULT_BODY_LIMIT_BYTES} bytes this operation takes`, details: [] });

	const chunk = await post("/attachments:upload", JSON.stringify({ content: Buffer.alloc(5 * 1024 * 1024).toString("base64") }));
	expect(chunk.status).toBe(400);
	// The same bytes are fine where the operation allows them.
	const attachment = await post("/attachments", JSON.stringify({ filename: "big.bin", content: Buffer.alloc(5 * 1024 * 1024, 1).toString("base64") }));
	expect(attachment.status).toBe(200);
});

test("beyond MAX_LARGE_BODIES large bodies in flight the gateway answers 429 with Retry-After; small bodies pass; the slot frees when the first ends", async () => {
	const content = Buffer.alloc(2 * 1024 * 1024, 2).toString("base64");
	const body = Buffer.from(JSON.stringify({ filename: "held.bin", content }));
	const half = Math.floor(body.length / 2);
	// The first upload sends half its body and waits, holding the one slot.
	const held = httpRequest(`${app().baseUrl}/api/v1/attachments`, { method: "POST", headers: { ...authHeaders(alice()), "Content-Length": String(body.length) } });
	const answered = new Promise<IncomingMessage>((resolve, reject) => {
		held.once("response", resolve);
		held.once("error", reject);
	});
	held.write(body.subarray(0, half));
	await waitFor("the first upload to hold its slot", async () => ((await largeBodiesInFlight()) === 1 ? true : undefined));

	// A second large body (invalid JSON: had it a slot, it would be refused as such, 400).
	const other = () => post("/attachments", Buffer.alloc(2 * 1024 * 1024, 0x20));
	const refused = await other();
	expect(refused.status).toBe(429);
	expect(refused.headers.get("retry-after")).toBe(String(LARGE_BODY_RETRY_AFTER_SECONDS));
	expect(await refused.json()).toMatchObject({ code: 8 });
	expect((await api.create(alice(), { content: "small bodies pass" })).status).toBe(200);

	held.end(body.subarray(half));
	const res = await answered;
	res.resume();
	expect(res.statusCode).toBe(200);
	await waitFor("the slot to be free again", async () => ((await largeBodiesInFlight()) === 0 ? true : undefined));
	expect((await other()).status).toBe(400);
});
