import { usePopulatedApp } from "../support/populated-app.js";

/**
 * Issue 12, "What was seen", each reproduced over HTTP: the server answers quickly with the
 * contract's code and keeps serving others. A hang shows as the test runner's time-out.
 */
const { app, api, admin, users: [alice] } = usePopulatedApp(1);

describe("filters run in time linear in the data (contract 19)", () => {
	test("a tags.exists filter of 40 groups of alternatives, which once backtracked for hours, answers at once; others are served meanwhile", async () => {
		await api.setAccessMode(admin(), "PUBLIC");
		const tagged = await api.create(alice(), { content: "#alpha #beta/q1 hello", visibility: "PUBLIC" });
		await api.create(alice(), { content: "#alpha only", visibility: "PUBLIC" });
		const groups = Array.from({ length: 40 }, () => '(t.contains("") || t.contains(""))').join(" && ");
		const filter = `tags.exists(t, ${groups} && t.endsWith("Q1"))`;
		const [list, profile] = await Promise.all([api.list(null, { filter }), fetch(`${app().baseUrl}/api/v1/instance/profile`)]);
		expect(profile.status).toBe(200);
		expect(list.status).toBe(200);
		expect((list.body as { memos: { name: string }[] }).memos.map(memo => memo.name)).toEqual([tagged.body.name]);
	});

	test("a filter beyond the complexity limits is INVALID_ARGUMENT", async () => {
		const tooMany = Array.from({ length: 257 }, (_, i) => `content == "${i}"`).join(" || ");
		const deep = `${"(".repeat(33)}pinned${")".repeat(33)}`;
		for (const filter of [tooMany, deep]) {
			const res = await api.list(alice(), { filter });
			expect(res.status).toBe(400);
			expect(res.body).toMatchObject({ code: 3 });
		}
	});
});
