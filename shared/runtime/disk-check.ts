import { rm, writeFile } from "node:fs/promises";
import path from "node:path";

/**
 * Whether the data directory takes a write now (issue 16.6): a full disk (ENOSPC), a
 * read-only or failing one makes the process not ready, since its writes would fail too,
 * while reads keep being served.
 */
export async function probeWritable(dir: string): Promise<void> {
	const probe = path.join(dir, `.readiness-${process.pid}`);
	try {
		await writeFile(probe, "ok", { flush: true });
	} finally {
		await rm(probe, { force: true });
	}
}
