import fc from "fast-check";
import { GRPC_CODES, PROTOCOL_HTTP_STATUSES } from "../../shared/errors.js";
import { fuzzOperations, requestFor, type FuzzPools, type FuzzRequest } from "../support/fuzz-requests.js";
import { usePopulatedApp } from "../support/populated-app.js";
import { authHeaders, signIn, signUp, type Session } from "../support/users.js";

/**
 * Fuzzing every operation of the route table (issue 12 item 9): generated paths, query
 * parameters, bodies and encodings (test/support/fuzz-requests.ts), as a USER and anonymously.
 * Every answer is a success or a Status body (contract 1.8) with a 4xx code, never a 5xx, and
 * the server still serves a normal request after each operation's run. A fixed seed and a
 * bounded count by default; `FUZZ_RUNS=<runs per operation>` (and `FUZZ_SEED`) to run longer.
 */

const DEFAULT_RUNS = 10;
const RUNS = Number(process.env.FUZZ_RUNS ?? DEFAULT_RUNS);
const SEED = Number(process.env.FUZZ_SEED ?? 12_09);

const { app, api, admin } = usePopulatedApp(1);

const OPERATIONS = fuzzOperations();
const TUS_PATH = "/api/v1/attachments:tus";
const HTTP_OF_CODE = new Map<number, number>(Object.values(GRPC_CODES).map(({ code, http }) => [code, http]));

let users = 0;
let user: Session;
const SETTING_KEYS = ["GENERAL", "STORAGE", "MEMO_RELATED", "ACCESS", "AI", "NOTIFICATION", "WEBHOOKS", "TAGS"];
const pools: FuzzPools = { ids: [...SETTING_KEYS, "me", "-"], names: ["instance/settings/GENERAL"], byParam: { key: [...SETTING_KEYS], setting: [...SETTING_KEYS] } };

async function ok<T>(answer: Promise<{ status: number; body: T; text: string }>): Promise<T> {
	const res = await answer;
	if (res.status !== 200) throw new Error(`fixture request answered ${res.status}: ${res.text}`);
	return res.body;
}

/** A resource name, its last segment, and that segment as the value of the path parameters `params`. */
function remember(name: string, ...params: string[]): void {
	const id = name.split("/").at(-1) as string;
	pools.names.push(name);
	pools.ids.push(id);
	for (const param of params) (pools.byParam[param] ??= []).push(id);
}

/** A signed-in USER with a memo, a private memo, an attachment, a space, a share link, a reaction, a shortcut and a notification, all in the pools. */
async function newUser(): Promise<void> {
	users += 1;
	const username = `fuzzer${users}`;
	await signUp(app().baseUrl, username, undefined, { accessToken: admin().accessToken });
	user = await signIn(app().baseUrl, username);
	remember(user.user.name, "user", "username", "member");
	const memo = await ok(api.create(user, { content: "fuzz #tag", visibility: "PUBLIC" }));
	remember(memo.name, "memo");
	remember((await ok(api.create(user, { content: "private" }))).name, "memo");
	remember((await ok(api.request<{ name: string }>("POST", "/attachments", { as: user, body: { filename: "f.txt", content: "aGVsbG8=" } }))).name, "attachment");
	remember((await ok(api.request<{ name: string }>("POST", "/spaces", { as: user, body: { displayName: "fuzz" } }))).name, "space");
	remember((await ok(api.request<{ name: string }>("POST", `/${memo.name}/shares`, { as: user, body: {} }))).name, "share", "shareToken");
	remember((await ok(api.request<{ name: string }>("POST", `/${memo.name}/reactions`, { as: user, body: { reaction: { reactionType: "👍" } } }))).name, "reaction");
	const tus = await fetch(`${app().baseUrl}/api/v1/attachments:tus`, {
		method: "POST",
		headers: { ...authHeaders(user), "Tus-Resumable": "1.0.0", "Upload-Length": "100", "Upload-Metadata": `filename ${Buffer.from("t.bin").toString("base64")}` }
	});
	if (tus.status !== 201) throw new Error(`tus creation answered ${tus.status}: ${await tus.text()}`);
	remember(`uploads/${(tus.headers.get("location") ?? "").split("/").at(-1) as string}`, "upload");
	remember((await ok(api.request<{ name: string }>("POST", `/${user.user.name}/shortcuts`, { as: user, body: { title: "fuzz", filter: "pinned" } }))).name, "shortcut");
	await ok(api.create(admin(), { content: `for @${username}`, visibility: "PUBLIC" }));
	const inbox = await ok(api.request<{ notifications: { name: string }[] }>("GET", `/${user.user.name}/notifications`, { as: user }));
	if (inbox.notifications.length !== 1) throw new Error(`${username} has ${inbox.notifications.length} notifications, not the mention's one`);
	remember(inbox.notifications[0]!.name, "notification");
}

/** A fuzzed request may change the user's password or name: a new user takes over then. */
async function ensureUser(): Promise<void> {
	const me = user === undefined ? 401 : (await fetch(`${app().baseUrl}/api/v1/auth/me`, { headers: authHeaders(user) })).status;
	if (me !== 200) await newUser();
}

beforeAll(async () => {
	remember(admin().user.name, "user", "username", "member");
	remember((await ok(api.create(admin(), { content: "the admin's", visibility: "PROTECTED" }))).name, "memo");
	await newUser();
});

async function send(request: FuzzRequest): Promise<{ status: number; text: string }> {
	const headers = request.signedIn ? { ...request.headers, Authorization: `Bearer ${user.accessToken}` } : request.headers;
	const res = await fetch(`${app().baseUrl}${request.target}`, { method: request.method, headers, ...(request.body === undefined ? {} : { body: request.body }) });
	// A live stream (GET /api/v1/sse) never ends by itself: its opening is the answer.
	if (res.ok && res.headers.get("content-type") === "text/event-stream" && res.body !== null) {
		const reader = res.body.getReader();
		const first = await reader.read();
		await reader.cancel();
		return { status: res.status, text: new TextDecoder().decode(first.value) };
	}
	return { status: res.status, text: await res.text() };
}

function describeRequest(request: FuzzRequest): string {
	const body = request.body === undefined ? "" : ` body ${JSON.stringify(request.body.subarray(0, 300).toString("latin1"))}${request.body.length > 300 ? `… (${request.body.length} bytes)` : ""}`;
	return `${request.method} ${request.target.slice(0, 400)} as ${request.signedIn ? "a USER" : "anonymous"} headers ${JSON.stringify(request.headers)}${body}`;
}

/** Success, or a Status body whose code is a 4xx one matching the HTTP status; never a 5xx. */
function checkAnswer(request: FuzzRequest, status: number, text: string): void {
	const what = () => `${describeRequest(request)} answered ${status}: ${text.slice(0, 300)}`;
	if (status >= 500) throw new Error(`a 5xx: ${what()}`);
	if (status < 400 || request.method === "HEAD") return;
	let body: unknown;
	try {
		body = JSON.parse(text);
	} catch {
		throw new Error(`not a Status body: ${what()}`);
	}
	const { code, message, details, ...rest } = body as { code?: unknown; message?: unknown; details?: unknown };
	const statusBody = typeof code === "number" && typeof message === "string" && Array.isArray(details) && details.length === 0 && Object.keys(rest).length === 0;
	if (!statusBody) throw new Error(`not a Status body: ${what()}`);
	// tus names its own statuses for some failures (412, 413, 415: withHttpStatus); the body keeps the contract's code.
	const protocolStatus = request.target.startsWith(TUS_PATH) && PROTOCOL_HTTP_STATUSES.has(status);
	if (HTTP_OF_CODE.get(code) !== status && !protocolStatus) throw new Error(`code ${code} does not map to HTTP ${status}: ${what()}`);
}

/** A normal request still works: the profile anonymously, and the USER's own memo list. */
async function expectServing(): Promise<void> {
	expect((await fetch(`${app().baseUrl}/api/v1/instance/profile`)).status).toBe(200);
	await ensureUser();
	expect((await api.list(user, { pageSize: "1" })).status).toBe(200);
}

describe(`fuzzing every operation (${RUNS} requests each, seed ${SEED})`, () => {
	test("the route table yields every operation, with the file and avatar routes", () => {
		expect(OPERATIONS.length).toBeGreaterThan(80);
		expect(OPERATIONS.map(op => op.operationId)).toEqual(expect.arrayContaining(["CreateMemo", "UpdateMemo", "GetAttachmentFile", "GetUserAvatar", "Transcribe"]));
	});

	test.each(OPERATIONS.map(op => [`${op.operationId} (${op.method} ${op.path})`, op] as const))(
		"%s: 2xx or a 4xx Status body, never a 5xx; the server serves on",
		async (_name, op) => {
			await ensureUser();
			await fc.assert(
				fc.asyncProperty(requestFor(op, pools), async request => {
					const { status, text } = await send(request);
					checkAnswer(request, status, text);
				}),
				{ seed: SEED, numRuns: RUNS }
			);
			await expectServing();
		},
		60_000 + RUNS * 2_000
	);
});
