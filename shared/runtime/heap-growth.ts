import { setFlagsFromString } from "node:v8";

/**
 * How far V8 lets the old generation grow past what the last full collection left, in percent.
 * Left to itself V8 picks the factor at each full collection from how fast the old generation
 * fills: while bytes stream through (uploads, downloads) it fills slowly, V8 picks its minimum
 * (1.1), and a process can settle into a full collection every few hundred milliseconds for as
 * long as the transfer lasts, or not, by chance (issue 19: either cluster process, from one
 * start to the next; cluster download 4-11 CPU s per GiB). 3x, within V8's own range (1.1-4),
 * ended that: no such run in 8 fresh clusters, against most of them without it. Pinned in
 * cluster processes; the embedded app takes it only while a transfer runs (transferHeapGrowth):
 * pinned there too, its peak RSS at 100,000 memos rose from 179-184 to 211 MB (215 MB at 100 %),
 * over issue 15's bound of 200 MB.
 */
const HEAP_GROWING_PERCENT = 200;

const FLAG = "--heap-growing-percent";

/** V8's own choice at each full collection (the flag's default). */
const V8_DEFAULT_PERCENT = 0;

/** Set from the command line: then this module never changes it. */
const setByCommandLine = process.execArgv.some(arg => arg === FLAG || arg.startsWith(`${FLAG}=`));

let pinned = false;
let transfers = 0;

/** Sets the growth for good, unless the process was started with its own `--heap-growing-percent`. */
export function pinHeapGrowth(): void {
	if (setByCommandLine) return;
	pinned = true;
	setFlagsFromString(`${FLAG}=${HEAP_GROWING_PERCENT}`);
}

/**
 * The growth for the length of one transfer (an upload's part, a download), where it is not
 * pinned: V8 reads the flag each time a full collection computes the next limit, so a
 * collection during a transfer leaves room for its bytes, and the first one after the last
 * transfer goes back to V8's own factor. Call the answer once the transfer is over.
 */
export function transferHeapGrowth(): () => void {
	if (setByCommandLine || pinned) return () => undefined;
	if (transfers++ === 0) setFlagsFromString(`${FLAG}=${HEAP_GROWING_PERCENT}`);
	let over = false;
	return () => {
		if (over) return;
		over = true;
		if (--transfers === 0) setFlagsFromString(`${FLAG}=${V8_DEFAULT_PERCENT}`);
	};
}
