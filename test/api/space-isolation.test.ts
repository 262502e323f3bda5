import { authHeaders, type Session } from "../support/users.js";
import { listAll, type Answer, type Memo } from "../support/memos-client.js";
import { usePopulatedApp } from "../support/populated-app.js";

/**
 * The isolation matrix (contract 1.10, 3.2, 3.4, 8.1): every visibility × every kind of caller ×
 * every operation that can show a memo or something of it, generated from one table. The
 * expectation comes from the contract's read rule, written out independently here.
 */

type Visibility = "PRIVATE" | "PROTECTED" | "PUBLIC" | "SPACE";
const VISIBILITIES: Visibility[] = ["PRIVATE", "PROTECTED", "PUBLIC", "SPACE"];

interface CallerKind {
	kind: string;
	session: () => Session | null;
	creator: boolean;
	member: boolean;
}

const { app, api, admin, users } = usePopulatedApp(4);

const CALLERS: CallerKind[] = [
	{ kind: "creator", session: users[0], creator: true, member: true },
	{ kind: "same-space member", session: users[1], creator: false, member: true },
	{ kind: "other-space member", session: users[2], creator: false, member: false },
	{ kind: "non-member", session: users[3], creator: false, member: false },
	{ kind: "instance admin", session: admin, creator: false, member: false },
	{ kind: "anonymous (public instance)", session: () => null, creator: false, member: false }
];

/** The read rule of contract 3.2 for a NORMAL memo placed in the space. */
function readable(visibility: Visibility, caller: CallerKind): boolean {
	if (caller.creator) return true;
	const anonymous = caller.session() === null;
	switch (visibility) {
		case "PUBLIC":
			return true;
		case "PROTECTED":
			return !anonymous;
		case "SPACE":
			return caller.member;
		default:
			return false;
	}
}

/** The status a denied read answers (1.10): anonymous UNAUTHENTICATED, others PERMISSION_DENIED. */
const denied = (caller: CallerKind) => (caller.session() === null ? 401 : 403);

const SPACE = "spaces/team";
const OTHER_SPACE = "spaces/elsewhere";

/** Per visibility: a memo in the space, its attachment, a comment of that visibility on the PUBLIC memo, a share token. */
const fixture = {} as Record<Visibility, { memo: string; attachment: string; comment: string; share: string; filename: string }>;
/** A PUBLIC memo outside the space that references every memo of the fixture. */
let referrer = "";

async function ok<T>(res: Promise<Answer<T>>): Promise<T> {
	const answer = await res;
	if (answer.status !== 200) throw new Error(`answered ${answer.status}: ${answer.text}`);
	return answer.body;
}

beforeAll(async () => {
	const [alice, , carol] = app().users;
	await api.setAccessMode(admin(), "PUBLIC");
	await ok(api.request("POST", "/spaces", { as: alice, query: { spaceId: "team" }, body: { displayName: "Team" } }));
	await ok(api.request("POST", `/${SPACE}/members`, { as: alice, body: { user: "users/user2" } }));
	await ok(api.request("POST", "/spaces", { as: carol, query: { spaceId: "elsewhere" }, body: { displayName: "Elsewhere" } }));
	// Others' memos in the other space, so the other-space member holds memberships that must not leak into this one.
	await ok(api.create(carol, { content: "elsewhere", visibility: "SPACE", space: OTHER_SPACE }));

	const publicMemo = await ok(api.create(alice, { content: "public #iso", visibility: "PUBLIC", space: SPACE }));
	for (const visibility of VISIBILITIES) {
		const memo = visibility === "PUBLIC" ? publicMemo : await ok(api.create(alice, { content: `${visibility} #iso`, visibility, space: SPACE }));
		const filename = `${visibility.toLowerCase()}.txt`;
		const attachment = await ok(
			api.request<{ name: string }>("POST", "/attachments", { as: alice, body: { filename, content: Buffer.from(visibility).toString("base64"), memo: memo.name } })
		);
		const comment = await ok(api.request<Memo>("POST", `/${publicMemo.name}/comments`, { as: alice, body: { content: `comment ${visibility}`, visibility, space: SPACE } }));
		await ok(api.request("POST", `/${memo.name}/reactions`, { as: alice, body: { reaction: { reactionType: "👍" } } }));
		const share = await ok(api.request<{ name: string }>("POST", `/${memo.name}/shares`, { as: alice, body: {} }));
		fixture[visibility] = { memo: memo.name, attachment: attachment.name, comment: comment.name, share: share.name.split("/")[3], filename };
	}
	const ref = await ok(
		api.create(alice, { content: "refers to all", visibility: "PUBLIC", relations: VISIBILITIES.map(v => ({ relatedMemo: { name: fixture[v].memo }, type: "REFERENCE" })) })
	);
	referrer = ref.name;
});

/** What an operation shows: "readable" when the memo or its part is served or listed, "hidden" when not, or the status of a refusal. */
type Outcome = "readable" | "hidden" | number;

interface Operation {
	name: string;
	run(caller: CallerKind, visibility: Visibility): Promise<Outcome>;
	/** The expected outcome; by default the read rule, with the refusal status of 1.10. */
	expected?(caller: CallerKind, visibility: Visibility): Outcome;
	/** Not among the operations anonymous callers may use on a public instance (contract 2.2): UNAUTHENTICATED. */
	signedInOnly?: boolean;
}

function statusOutcome(res: { status: number }): Outcome {
	return res.status === 200 ? "readable" : res.status;
}

const listed = (present: boolean): Outcome => (present ? "readable" : "hidden");

async function listNames(caller: CallerKind, query: Record<string, string>): Promise<string[]> {
	return (await listAll(api, caller.session(), query)).names;
}

const OPERATIONS: Operation[] = [
	{
		name: "GetMemo",
		async run(caller, v) {
			const res = await api.get(caller.session(), fixture[v].memo);
			if (res.status === 200) expect(res.body.name).toBe(fixture[v].memo);
			return statusOutcome(res);
		}
	},
	{
		name: "GetMemo of a comment",
		run: async (caller, v) => statusOutcome(await api.get(caller.session(), fixture[v].comment))
	},
	{
		name: "ListMemos",
		run: async (caller, v) => listed((await listNames(caller, {})).includes(fixture[v].memo)),
		expected: (caller, v) => listed(readable(v, caller))
	},
	{
		name: "ListMemos, one memo per page",
		run: async (caller, v) => listed((await listNames(caller, { pageSize: "1", filter: '"iso" in tags' })).includes(fixture[v].memo)),
		expected: (caller, v) => listed(readable(v, caller))
	},
	{
		name: `ListMemos filter space == "${SPACE}"`,
		run: async (caller, v) => listed((await listNames(caller, { filter: `space == "${SPACE}"` })).includes(fixture[v].memo)),
		expected: (caller, v) => listed(readable(v, caller))
	},
	{
		name: "ListMemos filter visibility == the memo's",
		run: async (caller, v) => listed((await listNames(caller, { filter: `visibility == "${v}" && space != null` })).includes(fixture[v].memo)),
		expected: (caller, v) => listed(readable(v, caller))
	},
	{
		name: "ListMemos showDeleted, state ARCHIVED",
		run: async (caller, v) => {
			const names = [...(await listNames(caller, { showDeleted: "true" })), ...(await listNames(caller, { state: "ARCHIVED" }))];
			return listed(names.includes(fixture[v].memo));
		},
		expected: (caller, v) => listed(readable(v, caller))
	},
	{
		name: "ListMemoComments of the PUBLIC memo lists the comment",
		run: async (caller, v) => {
			const res = await api.request<{ memos: Memo[] }>("GET", `/${fixture.PUBLIC.memo}/comments`, { as: caller.session() });
			expect(res.status).toBe(200);
			return listed(res.body.memos.some(m => m.name === fixture[v].comment));
		},
		expected: (caller, v) => listed(readable(v, caller))
	},
	{
		name: "ListMemoComments",
		run: async (caller, v) => statusOutcome(await api.request("GET", `/${fixture[v].memo}/comments`, { as: caller.session() }))
	},
	{
		name: "ListMemoRelations",
		signedInOnly: true,
		run: async (caller, v) => statusOutcome(await api.request("GET", `/${fixture[v].memo}/relations`, { as: caller.session() }))
	},
	{
		name: "ListMemoRelations of a referring PUBLIC memo",
		signedInOnly: true,
		run: async (caller, v) => {
			const res = await api.request<{ relations: { relatedMemo: { name: string } }[] }>("GET", `/${referrer}/relations`, { as: caller.session() });
			if (res.status !== 200) return res.status;
			return listed(res.body.relations.some(r => r.relatedMemo.name === fixture[v].memo));
		},
		expected: (caller, v) => listed(readable(v, caller))
	},
	{
		name: "relations of a referring PUBLIC memo in GetMemo",
		run: async (caller, v) => {
			const res = await api.get(caller.session(), referrer);
			expect(res.status).toBe(200);
			return listed((res.body.relations as { relatedMemo: { name: string } }[]).some(r => r.relatedMemo.name === fixture[v].memo));
		},
		expected: (caller, v) => listed(readable(v, caller))
	},
	{
		name: "ListMemoReactions",
		signedInOnly: true,
		run: async (caller, v) => statusOutcome(await api.request("GET", `/${fixture[v].memo}/reactions`, { as: caller.session() }))
	},
	{
		name: "ListMemoAttachments",
		run: async (caller, v) => statusOutcome(await api.request("GET", `/${fixture[v].memo}/attachments`, { as: caller.session() }))
	},
	{
		name: "GetAttachment",
		run: async (caller, v) => {
			const res = await api.request<{ space: string | null }>("GET", `/${fixture[v].attachment}`, { as: caller.session() });
			if (res.status === 200) expect(res.body.space).toBe(SPACE);
			return statusOutcome(res);
		}
	},
	{
		name: "file route",
		run: async (caller, v) => {
			const session = caller.session();
			const res = await fetch(`${app().baseUrl}/file/${fixture[v].attachment}/${fixture[v].filename}`, { headers: session === null ? {} : authHeaders(session) });
			const body = await res.text();
			if (res.status === 200) expect(body).toBe(v);
			else expect(body).not.toContain(v);
			return statusOutcome(res);
		}
	},
	{
		name: "file route with the share token of another memo",
		run: async (caller, v) => {
			const session = caller.session();
			const other = v === "PUBLIC" ? fixture.PROTECTED.share : fixture.PUBLIC.share;
			const res = await fetch(`${app().baseUrl}/file/${fixture[v].attachment}?share_token=${other}`, { headers: session === null ? {} : authHeaders(session) });
			expect(await res.text()).not.toContain(v);
			return statusOutcome(res);
		},
		expected: () => 404
	},
	{
		name: "file route with the memo's share token (the creator's explicit grant)",
		run: async (caller, v) => {
			const session = caller.session();
			const res = await fetch(`${app().baseUrl}/file/${fixture[v].attachment}?share_token=${fixture[v].share}`, { headers: session === null ? {} : authHeaders(session) });
			await res.arrayBuffer();
			return statusOutcome(res);
		},
		expected: () => "readable"
	},
	{
		name: `ListAttachments filter space == "${SPACE}"`,
		run: async (caller, v) => {
			const res = await api.request<{ attachments: { name: string }[] }>("GET", "/attachments", { as: caller.session(), query: { filter: `space == "${SPACE}"` } });
			if (caller.session() === null) return res.status;
			expect(res.status).toBe(200);
			return listed(res.body.attachments.some(a => a.name === fixture[v].attachment));
		},
		// Contract 8.1: own attachments, widened to a member's space by what the member can read.
		expected: (caller, v) => (caller.session() === null ? 401 : listed(caller.creator || (caller.member && readable(v, caller))))
	},
	{
		name: "GetSharedMemo (the creator's explicit grant) carries no relations",
		run: async (caller, v) => {
			const res = await api.request<Memo>("GET", `/shares/${fixture[v].share}/memo`, { as: caller.session() });
			if (res.status === 200) expect(res.body.relations).toEqual([]);
			return statusOutcome(res);
		},
		expected: () => "readable"
	}
];

const CASES = OPERATIONS.flatMap(operation =>
	VISIBILITIES.flatMap(visibility =>
		CALLERS.map(caller => [operation.name, visibility, caller.kind, operation, caller] as const)
	)
);

describe("isolation matrix", () => {
	test.each(CASES)("%s · %s memo · %s", async (_op, visibility, _kind, operation, caller) => {
		const anonymousRefused = operation.signedInOnly === true && caller.session() === null;
		const expected = anonymousRefused ? 401 : (operation.expected?.(caller, visibility) ?? (readable(visibility, caller) ? "readable" : denied(caller)));
		expect(await operation.run(caller, visibility)).toBe(expected);
	});
});

describe("nothing else reveals a SPACE memo", () => {
	const nonMembers = () => CALLERS.filter(c => !c.member);

	test("a member's page token is refused for anyone else", async () => {
		const bob = users[1]();
		const page = await ok(api.list(bob, { pageSize: "1", filter: `space == "${SPACE}"` }));
		expect(page.nextPageToken).not.toBe("");
		for (const caller of nonMembers()) {
			const res = await api.list(caller.session(), { pageSize: "1", filter: `space == "${SPACE}"`, pageToken: page.nextPageToken });
			expect(res.status).toBe(400);
		}
	});

	test("relating, reacting, commenting and sharing need the read right", async () => {
		const target = fixture.SPACE.memo;
		for (const caller of nonMembers().filter(c => c.session() !== null)) {
			const as = caller.session();
			const own = await ok(api.create(as, { content: "mine", visibility: "PRIVATE" }));
			expect((await api.request("PATCH", `/${own.name}/relations`, { as, body: { relations: [{ relatedMemo: { name: target }, type: "REFERENCE" }] } })).status).toBe(404);
			expect((await api.create(as, { content: "ref", relations: [{ relatedMemo: { name: target }, type: "REFERENCE" }] })).status).toBe(404);
			expect((await api.request("POST", `/${target}/reactions`, { as, body: { reaction: { reactionType: "👀" } } })).status).toBe(403);
			expect((await api.request("POST", `/${target}/comments`, { as, body: { content: "hi" } })).status).toBe(403);
			// Instance ADMINs manage the shares only of memos they can read (contract 3.1); nobody else reaches them.
			expect((await api.request("GET", `/${target}/shares`, { as })).status).toBe(403);
		}
	});

	test("placing memos in a space, or moving them there, needs a membership; the space answers NOT_FOUND", async () => {
		const dave = users[3]();
		expect((await api.create(dave, { content: "x", visibility: "SPACE", space: SPACE })).status).toBe(404);
		expect((await api.create(dave, { content: "x", visibility: "PUBLIC", space: SPACE })).status).toBe(404);
		expect((await api.request("POST", `/${fixture.PUBLIC.memo}/comments`, { as: dave, body: { content: "x", visibility: "SPACE", space: SPACE } })).status).toBe(404);
		const own = await ok(api.create(dave, { content: "mine" }));
		expect((await api.update(dave, own.name, "space", { space: SPACE })).status).toBe(404);
	});

	test("an unknown share token reveals nothing", async () => {
		const res = await api.request("GET", "/shares/AAAAAAAAAAAAAAAAAAAAAA/memo");
		expect(res.status).toBe(404);
	});
});
