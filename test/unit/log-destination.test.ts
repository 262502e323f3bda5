import { execFileSync } from "node:child_process";
import path from "node:path";
import { BatchedDestination, type DestinationFiles } from "../../shared/runtime/log-destination.js";
import { waitFor } from "../support/processes.js";

type Callback = (err: NodeJS.ErrnoException | null, written: number) => void;

/** A descriptor that takes at most `takes` bytes per write, answering when the test lets it. */
class FakeFd implements DestinationFiles {
	readonly bytes: Buffer[] = [];
	readonly waiting: (() => void)[] = [];
	refusals: string[] = [];
	auto = true;

	constructor(private readonly takes = Infinity) {}

	write(_fd: number, buffer: Buffer, offset: number, length: number, _position: null, callback: Callback): void {
		const answer = () => {
			const code = this.refusals.shift();
			if (code) return callback(Object.assign(new Error(code), { code }), 0);
			const n = Math.min(length, this.takes);
			this.bytes.push(Buffer.from(buffer.subarray(offset, offset + n)));
			callback(null, n);
		};
		if (this.auto) setImmediate(answer);
		else this.waiting.push(answer);
	}

	writeSync(_fd: number, buffer: Buffer, offset: number, length: number): number {
		this.bytes.push(Buffer.from(buffer.subarray(offset, offset + length)));
		return length;
	}

	release(): void {
		this.auto = true;
		for (const answer of this.waiting.splice(0)) answer();
	}

	text(): string {
		return Buffer.concat(this.bytes).toString("utf8");
	}
}

const lineOf = (i: number) => `{"n":${i},"text":"${i % 7 === 0 ? "é€😀".repeat(i % 50) : "x".repeat(i % 300)}"}\n`;

describe("batched log destination", () => {
	test("every line, in order, whole, across batches, partial writes and lines longer than a batch", async () => {
		const fd = new FakeFd(1000);
		const out = new BatchedDestination({ fd: 1, chunkBytes: 4096, minBytes: 2048, files: fd });
		const lines = Array.from({ length: 3000 }, (_, i) => lineOf(i));
		lines.splice(1500, 0, `{"long":"${"é".repeat(5000)}"}\n`);
		for (const [i, line] of lines.entries()) {
			out.write(line);
			if (i % 100 === 0) await new Promise(resolve => setImmediate(resolve));
		}
		// Lines below the batch size go out at the periodic flush.
		await waitFor("every line", async () => (fd.text() === lines.join("") ? true : undefined));
		out.end();
	});

	test("a write is not waited for: lines are taken while the descriptor has not answered", () => {
		const fd = new FakeFd();
		fd.auto = false;
		const out = new BatchedDestination({ fd: 1, chunkBytes: 1024, minBytes: 512, files: fd });
		for (let i = 0; i < 100; i++) expect(out.write(lineOf(i))).toBe(true);
		expect(fd.waiting).toHaveLength(1);
		fd.release();
		out.end();
	});

	test("a slow descriptor: what waits stays bounded, lines beyond it are dropped and counted once the backlog is written", async () => {
		const fd = new FakeFd();
		fd.auto = false;
		const dropped: number[] = [];
		const out = new BatchedDestination({ fd: 1, chunkBytes: 1024, minBytes: 512, maxPendingBytes: 8192, files: fd, onDropped: lines => dropped.push(lines) });
		const lines = Array.from({ length: 2000 }, (_, i) => `{"n":${i}}\n`);
		const taken = lines.filter(line => out.write(line));
		expect(taken.length).toBeLessThan(lines.length);
		expect(Buffer.byteLength(taken.join(""))).toBeLessThanOrEqual(8192 + 1024 + 1024);
		fd.release();
		await waitFor("the backlog written", async () => (dropped.length > 0 ? true : undefined));
		expect(dropped).toEqual([lines.length - taken.length]);
		await waitFor("the lines taken", async () => (fd.text() === taken.join("") ? true : undefined));
		out.end();
	});

	test("at exit behind a stalled write: the lines after the batch it holds, then the drop notice, all written synchronously", () => {
		const fd = new FakeFd();
		fd.auto = false;
		const out = new BatchedDestination({ fd: 1, chunkBytes: 1024, minBytes: 16, maxPendingBytes: 4096, files: fd, onDropped: lines => out.write(`dropped ${lines}\n`) });
		const lines = Array.from({ length: 1000 }, (_, i) => `{"n":${i}}\n`);
		const taken = lines.filter(line => out.write(line));
		const held = Buffer.byteLength(lines.slice(0, 2).join(""));
		out.flushSync();
		expect(fd.waiting).toHaveLength(1);
		expect(fd.text()).toBe(`${taken.join("").slice(held)}dropped ${lines.length - taken.length}\n`);
		out.end();
	});

	test("a full pipe (EAGAIN) is retried; a closed one (EPIPE) ends logging without an error", async () => {
		const fd = new FakeFd();
		fd.refusals = ["EAGAIN", "EAGAIN"];
		const out = new BatchedDestination({ fd: 1, chunkBytes: 1024, minBytes: 100, retryMs: 1, files: fd });
		const lines = Array.from({ length: 20 }, (_, i) => lineOf(i));
		for (const line of lines) out.write(line);
		await waitFor("the lines after two refusals", async () => (fd.text() === lines.join("") ? true : undefined));

		fd.refusals = ["EPIPE"];
		out.write("x".repeat(200));
		await waitFor("the closed pipe seen", async () => (out.write("more") ? undefined : true));
		out.end();
	});

	test("at exit, lines waiting are written synchronously, process.exit included", () => {
		const module = JSON.stringify(path.resolve("shared/runtime/log-destination.ts"));
		const script = `
import { BatchedDestination } from ${module};
const out = new BatchedDestination({ fd: 1 });
for (let i = 0; i < 2000; i++) out.write(\`line \${i}\\n\`);
process.exit(0);
`;
		const output = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
		expect(output).toBe(Array.from({ length: 2000 }, (_, i) => `line ${i}\n`).join(""));
	});
});
