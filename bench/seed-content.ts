/**
 * Memo bodies with the mix of a real instance: tags (some nested), task lists, links, code,
 * headings and plain notes, from a seeded generator so that every run writes the same data.
 */
export type Random = () => number;

/** mulberry32: small, fast and good enough to spread benchmark data. */
export function seededRandom(seed: number): Random {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

export const TAGS = ["work", "work/q1", "work/q2", "ideas", "reading", "travel", "home", "recipes", "project/alpha", "project/beta", "health", "journal"];

/** The tag the filtered-list row asks for: common enough to fill a page at any size. */
export const FILTER_TAG = "work";

const WORDS = (
	"the a meeting notes plan draft review idea follow up with team about budget schedule release " +
	"book chapter summary trip train hotel dinner recipe garden fix bug deploy server weekly monthly " +
	"remember call write read buy check update share design sketch question answer later today"
).split(" ");

function pick<T>(random: Random, items: readonly T[]): T {
	return items[Math.floor(random() * items.length)] as T;
}

function sentence(random: Random): string {
	const words = Array.from({ length: 4 + Math.floor(random() * 10) }, () => pick(random, WORDS));
	const text = words.join(" ");
	return `${text[0]?.toUpperCase()}${text.slice(1)}.`;
}

export function memoContent(random: Random, serial: number): string {
	const parts: string[] = [];
	if (random() < 0.2) parts.push(`# ${sentence(random).slice(0, -1)}`);
	parts.push(Array.from({ length: 1 + Math.floor(random() * 3) }, () => sentence(random)).join(" "));
	if (random() < 0.3) {
		const tasks = Array.from({ length: 1 + Math.floor(random() * 4) }, () => `- [${random() < 0.5 ? "x" : " "}] ${sentence(random)}`);
		parts.push(tasks.join("\n"));
	}
	if (random() < 0.25) parts.push(`See https://example.com/articles/${serial} and [the notes](https://example.org/n/${serial % 97}).`);
	if (random() < 0.1) parts.push("```ts\nconst total = items.reduce((sum, item) => sum + item.price, 0);\n```");
	const tagCount = Math.floor(random() * 4);
	const tags = new Set(Array.from({ length: tagCount }, () => pick(random, TAGS)));
	if (tags.size > 0) parts.push([...tags].map(tag => `#${tag}`).join(" "));
	return parts.join("\n\n");
}
