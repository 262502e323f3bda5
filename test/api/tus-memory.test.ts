import { usePopulatedApp } from "../support/populated-app.js";
import { streamedPatch, type PatchAnswer } from "../support/streamed-patch.js";

/**
 * Issue 19 item 3: the gateway streams tus PATCH bodies to the blob store, so 8 concurrent
 * uploads of 30 MiB (240 MiB in all) grow the process by far less than they carry.
 */

const { app, api, users: [alice] } = usePopulatedApp(1);
const MiB = 1024 * 1024;
const UPLOADS = 8;
const SIZE = 30 * MiB;
/** Generous: GC lag and socket buffers fit in it; buffering even half of the bodies does not. */
const GROWTH_BOUND = 120 * MiB;
/** The bytes every client sends over and over (the content does not matter here, its length does). */
const BLOCK = Buffer.alloc(MiB, 0x5a);

async function createUpload(i: number): Promise<URL> {
	const res = await fetch(`${app().baseUrl}/api/v1/attachments:tus`, {
		method: "POST",
		headers: { "Tus-Resumable": "1.0.0", Authorization: `Bearer ${alice().accessToken}`, "Upload-Length": String(SIZE), "Upload-Metadata": `filename ${Buffer.from(`big-${i}.bin`).toString("base64")}` }
	});
	expect(res.status).toBe(201);
	return new URL(res.headers.get("location") as string, app().baseUrl);
}

test("8 concurrent 30 MiB tus uploads: each becomes its attachment, and the process's peak RSS grows by at most 120 MiB (not the 240 MiB they carry)", async () => {
	const urls = await Promise.all(Array.from({ length: UPLOADS }, (_, i) => createUpload(i)));
	const baseline = process.memoryUsage.rss();
	let peak = baseline;
	// Sampled while the bodies flow; the assertion is on bytes, never on time.
	const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
	let answers: PatchAnswer[];
	try {
		answers = await Promise.all(urls.map(url => streamedPatch(url, { authorization: `Bearer ${alice().accessToken}` }, SIZE, BLOCK)));
	} finally {
		clearInterval(sampler);
	}
	peak = Math.max(peak, process.memoryUsage.rss());
	expect(answers.map(a => a.status)).toEqual(Array(UPLOADS).fill(204));
	for (const [i, answer] of answers.entries()) {
		const got = await api.request("GET", `/${answer.attachment as string}`, { as: alice() });
		expect(got.body).toMatchObject({ filename: `big-${i}.bin`, size: String(SIZE) });
	}
	expect(peak - baseline).toBeLessThanOrEqual(GROWTH_BOUND);
}, 120_000);
