import { writeFile } from "node:fs/promises";
import type { ServiceBroker } from "moleculer";
import { CATALOG } from "../services/catalog.js";
import type { Caller, RequestMeta } from "../shared/caller.js";
import { loadConfig } from "../shared/runtime/config.js";
import { startNode } from "../shared/runtime/node.js";
import { authActions, type UserRef } from "../services/auth/auth.contract.js";
import { memosActions } from "../services/memos/memos.contract.js";
import { spacesActions } from "../services/spaces/spaces.contract.js";
import { call } from "../shared/contract.js";
import { memoContent, seededRandom, type Random } from "./seed-content.js";

/**
 * Fills DATA_DIR through the services' own actions (what CreateUser, CreateSpace,
 * AddSpaceMember, CreateMemo and CreateMemoComment do behind the gateway), in process and
 * with calls in flight concurrently, then writes what it made to BENCH_SEED_OUT as JSON.
 */
export interface SeedResult {
	password: string;
	/** usernames; the first is the instance ADMIN, the one the signed-in rows use. */
	users: string[];
	/** Memos of the first user (any visibility), for GetMemo. */
	sampleMemoIds: string[];
	memos: number;
	comments: number;
	spaces: number;
	seconds: number;
}

const PASSWORD = "bench password 1";
const USER_COUNT = 8;
const CONCURRENCY = 32;
const YEAR_MS = 365 * 24 * 60 * 60 * 1000;
const SAMPLE_SIZE = 200;
/** Space owner (user index) and members; every user but one is in some space. */
const SPACES: { owner: number; members: number[] }[] = [
	{ owner: 0, members: [1, 2, 3] },
	{ owner: 4, members: [0, 5] },
	{ owner: 6, members: [7, 1] }
];

type Meta = RequestMeta;

function metaOf(caller: Caller | null): { meta: Meta } {
	return { meta: { user: caller, requestTime: Date.now() } };
}

async function inParallel(count: number, work: (i: number) => Promise<void>): Promise<void> {
	let next = 0;
	const worker = async () => {
		for (let i = next++; i < count; i = next++) await work(i);
	};
	await Promise.all(Array.from({ length: Math.min(CONCURRENCY, count) }, worker));
}

function visibilityOf(random: Random, spaceIds: string[]): { visibility: string; space?: string } {
	const roll = random();
	if (roll < 0.15 && spaceIds.length > 0) return { visibility: "SPACE", space: `spaces/${spaceIds[Math.floor(random() * spaceIds.length)]}` };
	if (roll < 0.35) return { visibility: "PUBLIC" };
	if (roll < 0.6) return { visibility: "PROTECTED" };
	return { visibility: "PRIVATE" };
}

async function seed(broker: ServiceBroker, memoCount: number): Promise<Omit<SeedResult, "seconds">> {
	const usernames = Array.from({ length: USER_COUNT }, (_, i) => `bench${i}`);
	// The first user becomes ADMIN and creates the others.
	await call(broker, authActions.createUser, { user: { username: usernames[0], password: PASSWORD } }, metaOf(null));
	const [first] = await call(broker, authActions.lookupUsers, { usernames: [usernames[0] as string] });
	const admin: Caller = { id: first?.id as string, username: first?.username as string, role: "ADMIN" };
	for (const username of usernames.slice(1)) await call(broker, authActions.createUser, { user: { username, password: PASSWORD } }, metaOf(admin));
	const refs = await call(broker, authActions.lookupUsers, { usernames });
	const callers: Caller[] = usernames.map(name => {
		const ref = refs.find(r => r.username === name) as UserRef;
		return { id: ref.id, username: ref.username, role: ref.role };
	});

	const spacesOf: string[][] = callers.map(() => []);
	for (const [i, space] of SPACES.entries()) {
		const created = await call(broker, spacesActions.createSpace, { space: { displayName: `Team ${i + 1}` } }, metaOf(callers[space.owner] as Caller));
		const spaceId = String(created.name).slice("spaces/".length);
		spacesOf[space.owner]?.push(spaceId);
		for (const member of space.members) {
			await call(broker, spacesActions.addSpaceMember, { space: spaceId, member: { user: `users/${usernames[member]}` } }, metaOf(callers[space.owner] as Caller));
			spacesOf[member]?.push(spaceId);
		}
	}

	const random = seededRandom(15);
	const now = Date.now();
	const sampleMemoIds: string[] = [];
	const commentable: { id: string; creator: number }[] = [];
	await inParallel(memoCount, async i => {
		const creator = i % USER_COUNT;
		const createTime = new Date(now - Math.floor(random() * YEAR_MS)).toISOString();
		const memo = {
			content: memoContent(random, i),
			...visibilityOf(random, spacesOf[creator] ?? []),
			pinned: random() < 0.02,
			createTime,
			updateTime: createTime
		};
		const created = await call(broker, memosActions.createMemo, { memo }, metaOf(callers[creator] as Caller));
		const id = String(created.name).slice("memos/".length);
		if (creator === 0 && sampleMemoIds.length < SAMPLE_SIZE) sampleMemoIds.push(id);
		if (created.visibility !== "PRIVATE" && created.visibility !== "SPACE" && random() < 0.05) commentable.push({ id, creator });
	});

	let comments = 0;
	await inParallel(commentable.length, async i => {
		const parent = commentable[i] as { id: string; creator: number };
		const replies = 1 + Math.floor(random() * 2);
		for (let r = 0; r < replies; r++) {
			const author = callers[(parent.creator + 1 + r) % USER_COUNT] as Caller;
			await call(broker, memosActions.createMemoComment, { memo: parent.id, comment: { content: memoContent(random, i) } }, metaOf(author));
			comments++;
		}
	});
	return { password: PASSWORD, users: usernames, sampleMemoIds, memos: memoCount, comments, spaces: SPACES.length };
}

async function main(): Promise<void> {
	const out = process.env.BENCH_SEED_OUT;
	const memoCount = Number(process.env.BENCH_MEMOS);
	if (!out || !Number.isSafeInteger(memoCount) || memoCount < 1) throw new Error("BENCH_SEED_OUT and BENCH_MEMOS (a positive integer) are required");
	const started = performance.now();
	const config = loadConfig({ ...process.env, SERVICES: "auth,memos,attachments,spaces,instance", HEALTH_PORT: "0", METRICS_ENABLED: "false" });
	const node = await startNode(config, CATALOG);
	try {
		const result = await seed(node.broker, memoCount);
		await writeFile(out, JSON.stringify({ ...result, seconds: (performance.now() - started) / 1000 } satisfies SeedResult));
	} finally {
		await node.stop();
	}
}

main().catch((err: unknown) => {
	console.error("bench seed failed:", err);
	process.exit(1);
});
