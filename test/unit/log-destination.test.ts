import { execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { logDestination } from "../../shared/runtime/broker-options.js";
import { waitFor } from "../support/processes.js";

const KiB = 1024;

/** A real pipe (a FIFO) whose reader reads nothing until `read` is called. */
function stalledPipe() {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "log-pipe-"));
	const fifo = path.join(dir, "pipe");
	execFileSync("mkfifo", [fifo]);
	const readFd = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
	const writeFd = fs.openSync(fifo, "w");
	let text = "";
	let reader: net.Socket | undefined;
	return {
		writeFd,
		read() {
			if (reader) return;
			reader = new net.Socket({ fd: readFd, readable: true, writable: false });
			reader.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
		},
		text: () => text,
		close() {
			reader?.destroy();
			fs.rmSync(dir, { recursive: true });
		}
	};
}

const lineOf = (i: number) => `{"n":${i},"text":"${"x".repeat(i % 300)}"}\n`;

/** A line as pino hands it to the destination in the app (broker-options.ts's `toBuffer` hook); sonic-boom's typings say a string. */
const bytesOf = (line: string) => Buffer.from(line) as unknown as string;

const notices = (text: string) => text.split("\n").filter(line => line.includes('"droppedLines"'));

describe("the log destination (pino's sonic-boom)", () => {
	// The pipe is read and closed even when a test fails: a write blocked on it would keep Jest waiting.
	let cleanup: (() => void) | undefined;
	afterEach(() => {
		cleanup?.();
		cleanup = undefined;
	});

	test("a reader that does not read: what waits stays bounded, the lines beyond are dropped, and one warn line counts them once the reader catches up", async () => {
		const pipe = stalledPipe();
		const maxBytes = 64 * KiB;
		const out = logDestination(pipe.writeFd, maxBytes);
		cleanup = () => {
			pipe.read();
			out.end();
			pipe.close();
		};
		const dropped = new Set<string>();
		out.on("drop", (line: Buffer) => dropped.add(line.toString()));
		const lines: string[] = [];
		// Written over several turns of the event loop, so the batches go out until the pipe is full.
		while (dropped.size < 100) {
			for (let i = 0; i < 100; i++) {
				const line = lineOf(lines.length);
				lines.push(line);
				out.write(bytesOf(line));
			}
			await new Promise(resolve => setImmediate(resolve));
			expect(lines.length).toBeLessThan(1_000_000);
		}
		const taken = lines.filter(line => !dropped.has(line));
		// What the pipe holds (at most 1 MiB, Linux's pipe-max-size) plus what waits in the process.
		expect(Buffer.byteLength(taken.join(""))).toBeLessThanOrEqual(maxBytes + 1024 * KiB);

		pipe.read();
		// A notice comes at each catching up: one may already have come while the pipe still took batches.
		const counted = () => notices(pipe.text()).reduce((sum, line) => sum + (JSON.parse(line) as { droppedLines: number }).droppedLines, 0);
		await waitFor("every drop said", async () => (counted() === dropped.size ? true : undefined));
		for (const notice of notices(pipe.text())) {
			const { droppedLines } = JSON.parse(notice) as { droppedLines: number };
			expect(JSON.parse(notice)).toMatchObject({ level: 40, msg: `${droppedLines} log lines dropped: the log's reader did not keep up with them` });
		}
		const withoutNotices = () => pipe.text().split("\n").filter(line => line && !line.includes('"droppedLines"')).map(line => `${line}\n`).join("");
		expect(withoutNotices()).toBe(taken.join(""));

		// Said once: the lines after it come without another notice.
		const said = notices(pipe.text()).length;
		const after = lineOf(7);
		out.write(bytesOf(after));
		await waitFor("a line after the notices", async () => (pipe.text().endsWith(after) ? true : undefined));
		expect(notices(pipe.text())).toHaveLength(said);
	});

	test("at exit (process.exit), the lines waiting are written, then a drop count not yet said", () => {
		const module = JSON.stringify(path.resolve("dist/shared/runtime/broker-options.js"));
		// A bound below a batch: no asynchronous write starts, everything is left to the exit.
		const script = `
import { logDestination } from ${module};
const out = logDestination(1, 8 * 1024);
for (let i = 0; i < 2000; i++) out.write(Buffer.from(\`line \${i}\\n\`));
process.exit(0);
`;
		const output = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
		const lines = output.split("\n").filter(Boolean);
		const notice = lines.pop() as string;
		const taken = lines.length;
		expect(lines).toEqual(Array.from({ length: taken }, (_, i) => `line ${i}`));
		expect(taken).toBeGreaterThan(0);
		expect(JSON.parse(notice)).toMatchObject({ level: 40, droppedLines: 2000 - taken });
	});
});
