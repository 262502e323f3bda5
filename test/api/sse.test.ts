import { startEmbeddedApp } from "../support/embedded-app.js";
import type { Answer } from "../support/memos-client.js";
import { usePopulatedApp } from "../support/populated-app.js";
import { waitFor } from "../support/processes.js";
import { openSse, type SseData, type SseStream } from "../support/sse-client.js";
import type { Session } from "../support/users.js";

/** GET /api/v1/sse (contract 17): the live stream over HTTP, read as a client reads it. */

const { app, api, users: [alice, bob, carol] } = usePopulatedApp(3, { SSE_HEARTBEAT_MS: "300" });

const streams: SseStream[] = [];

async function stream(as: Session | string | undefined): Promise<SseStream> {
	const opened = await openSse(app().baseUrl, typeof as === "object" ? as.accessToken : as);
	streams.push(opened);
	return opened;
}

afterEach(() => {
	for (const opened of streams.splice(0)) opened.close();
});

async function ok<T>(res: Promise<Answer<T>>): Promise<T> {
	const answer = await res;
	if (answer.status !== 200) throw new Error(`answered ${answer.status}: ${answer.text}`);
	return answer.body;
}

/** Waits for `event` on `s`. */
const heard = (s: SseStream, event: SseData) => s.until(JSON.stringify(event), () => s.events.some(e => JSON.stringify(e) === JSON.stringify(event)));

let markers = 0;
/** A PROTECTED memo every signed-in stream hears: once it is heard, anything sent before it was heard too (one gateway keeps order). */
async function marker(s: SseStream[]): Promise<void> {
	markers += 1;
	const memo = await ok(api.create(alice(), { content: `marker ${markers}`, visibility: "PROTECTED" }));
	for (const one of s) await heard(one, { type: "memo.created", name: memo.name });
}

describe("opening a stream", () => {
	test("an access token opens it: text/event-stream, `: connected` first, then heartbeats while idle", async () => {
		const s = await stream(alice());
		expect(s.status).toBe(200);
		expect(s.headers["content-type"]).toBe("text/event-stream");
		expect(s.headers["cache-control"]).toBe("no-cache");
		await s.until("two heartbeats", () => s.comments.filter(c => c === "heartbeat").length >= 2);
		expect(s.comments[0]).toBe("connected");
	});

	test("a personal access token opens it too; its stream hears changes until the token is deleted", async () => {
		const created = await ok(
			api.request<{ token: string; personalAccessToken: { name: string } }>("POST", `/users/${alice().user.username}/personalAccessTokens`, { as: alice(), body: { description: "live" } })
		);
		const [s, other] = [await stream(created.token), await stream(alice())];
		expect(s.status).toBe(200);
		const memo = await ok(api.create(alice(), { content: "by PAT" }));
		await heard(s, { type: "memo.created", name: memo.name });
		await ok(api.request("DELETE", `/${created.personalAccessToken.name}`, { as: alice() }));
		await s.ended;
		expect(s.complete).toBe(true);
		// The same user's stream opened with a session lives on.
		await marker([other]);
	});

	test("no token or a bad token: 401 with the Status body", async () => {
		for (const token of [undefined, "not-a-token"]) {
			const s = await stream(token);
			await s.ended;
			expect({ status: s.status, body: JSON.parse(s.refusal) }).toEqual({ status: 401, body: { code: 16, message: expect.any(String), details: [] } });
		}
	});
});

describe("events", () => {
	test("create, update, comment, reactions and delete, as upstream sends them, to every reader", async () => {
		const [mine, reader] = [await stream(alice()), await stream(bob())];
		const memo = await ok(api.create(alice(), { content: "live", visibility: "PROTECTED" }));
		await ok(api.update(alice(), memo.name, "content", { content: "live, edited" }));
		const comment = await ok(api.request<{ name: string }>("POST", `/${memo.name}/comments`, { as: bob(), body: { content: "a reply", visibility: "PROTECTED" } }));
		const reaction = await ok(api.request<{ name: string }>("POST", `/${memo.name}/reactions`, { as: bob(), body: { reaction: { reactionType: "👍" } } }));
		await ok(api.request("POST", `/${comment.name}/reactions`, { as: alice(), body: { reaction: { reactionType: "🎉" } } }));
		await ok(api.request("DELETE", `/${reaction.name}`, { as: bob() }));
		await ok(api.request("DELETE", `/${memo.name}`, { as: alice() }));
		const expected: SseData[] = [
			{ type: "memo.created", name: memo.name },
			{ type: "memo.updated", name: memo.name },
			// Upstream names the commented memo.
			{ type: "memo.comment.created", name: memo.name },
			{ type: "reaction.upserted", name: memo.name },
			{ type: "reaction.upserted", name: comment.name, parent: memo.name },
			{ type: "reaction.deleted", name: memo.name },
			{ type: "memo.deleted", name: memo.name }
		];
		for (const s of [mine, reader]) {
			await s.until("every change", () => s.events.length >= expected.length);
			expect(s.events).toEqual(expected);
		}
	});

	test("nothing about a memo the user cannot read: another's PRIVATE memo, or a comment on it", async () => {
		const [mine, other] = [await stream(alice()), await stream(carol())];
		const memo = await ok(api.create(alice(), { content: "private" }));
		await ok(api.update(alice(), memo.name, "pinned", { pinned: true }));
		await ok(api.request("POST", `/${memo.name}/comments`, { as: alice(), body: { content: "a public note on it", visibility: "PUBLIC" } }));
		await marker([mine, other]);
		expect(mine.events.filter(e => e.name === memo.name).map(e => e.type)).toEqual(["memo.created", "memo.updated", "memo.comment.created"]);
		expect(other.events.map(e => e.name)).not.toContain(memo.name);
	});

	test("a member removed from a space stops hearing its SPACE memos", async () => {
		const space = await ok(api.request<{ name: string }>("POST", "/spaces", { as: alice(), body: { displayName: "Live team" } }));
		await ok(api.request("POST", `/${space.name}/members`, { as: alice(), body: { user: `users/${bob().user.username}` } }));
		const [member, outsider] = [await stream(bob()), await stream(carol())];
		const memo = await ok(api.create(alice(), { content: "team only", visibility: "SPACE", space: space.name }));
		await heard(member, { type: "memo.created", name: memo.name });

		await ok(api.request("DELETE", `/${space.name}/members/${bob().user.username}`, { as: alice() }));
		await ok(api.update(alice(), memo.name, "content", { content: "after bob left" }));
		await marker([member, outsider]);
		expect(member.events.filter(e => e.name === memo.name)).toEqual([{ type: "memo.created", name: memo.name }]);
		expect(outsider.events.map(e => e.name)).not.toContain(memo.name);
	});

	test("signing out ends the streams of that session", async () => {
		const session = alice();
		const s = await stream(session);
		const res = await fetch(`${app().baseUrl}/api/v1/auth/signout`, { method: "POST", headers: { Cookie: session.cookie, Authorization: `Bearer ${session.accessToken}` } });
		expect(res.status).toBe(200);
		await s.ended;
		expect(s.complete).toBe(true);
	});
});

describe("limits and shutdown", () => {
	test("beyond SSE_MAX_STREAMS a stream is refused with RESOURCE_EXHAUSTED; a closed one frees its place; shutdown ends streams cleanly", async () => {
		const small = await startEmbeddedApp({ SSE_MAX_STREAMS: "2" });
		try {
			const signUp = await fetch(`${small.baseUrl}/api/v1/users`, {
				method: "POST",
				headers: { "Content-Type": "application/json" },
				body: JSON.stringify({ username: "first", password: "correct horse battery" })
			});
			expect(signUp.status).toBe(200);
			const signIn = await fetch(`${small.baseUrl}/api/v1/auth/signin`, {
				method: "POST",
				headers: { "Content-Type": "application/json" },
				body: JSON.stringify({ passwordCredentials: { username: "first", password: "correct horse battery" } })
			});
			const { accessToken } = (await signIn.json()) as { accessToken: string };
			const [one, two] = [await openSse(small.baseUrl, accessToken), await openSse(small.baseUrl, accessToken)];
			expect([one.status, two.status]).toEqual([200, 200]);
			const third = await openSse(small.baseUrl, accessToken);
			await third.ended;
			expect({ status: third.status, body: JSON.parse(third.refusal) }).toEqual({ status: 429, body: { code: 8, message: expect.any(String), details: [] } });

			one.close();
			const again = await waitFor(
				"a place freed by the closed stream",
				async () => {
					const s = await openSse(small.baseUrl, accessToken);
					if (s.status === 200) return s;
					await s.ended;
					return undefined;
				},
				20000
			);
			await again.until("connected", s => s.comments.includes("connected"));

			await small.stop();
			await Promise.all([two.ended, again.ended]);
			expect([two.complete, again.complete]).toEqual([true, true]);
		} finally {
			await small.stop();
		}
	}, 60000);
});
