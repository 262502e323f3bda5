import { setFlagsFromString } from "node:v8";

/**
 * How far V8 lets the old generation grow past what the last full collection left, in percent.
 * Left to itself V8 picks the factor at each full collection from how fast the old generation
 * fills: while bytes stream through (uploads, downloads) it fills slowly, V8 picks its minimum
 * (1.1), and a process can settle into a full collection every few hundred milliseconds for as
 * long as the transfer lasts, or not, by chance (issue 19: either cluster process, from one
 * start to the next; cluster download 4-11 CPU s per GiB). 3x, within V8's own range (1.1-4),
 * ended that: no such run in 8 fresh clusters, against most of them without it. Set in cluster
 * processes only, a trade: in the embedded app it also spares CPU per byte moved (downloads
 * 0.9 against 2.2-2.6 CPU s per GiB in the bench), but its peak RSS at 100,000 memos rose from
 * 179-184 to 211 MB (215 MB at 100 %), over issue 15's bound of 200 MB.
 */
const HEAP_GROWING_PERCENT = 200;

const FLAG = "--heap-growing-percent";

/** Sets the growth, unless the process was started with its own `--heap-growing-percent`. */
export function pinHeapGrowth(): void {
	if (process.execArgv.some(arg => arg === FLAG || arg.startsWith(`${FLAG}=`))) return;
	setFlagsFromString(`${FLAG}=${HEAP_GROWING_PERCENT}`);
}
