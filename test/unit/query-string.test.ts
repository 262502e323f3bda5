import { createRequire } from "node:module";
import { plainQuery } from "../../services/gateway/query-string.js";

/** moleculer-web's own query parser, which plainQuery must agree with wherever it answers. */
const qs = createRequire(import.meta.url)("qs") as { parse(text: string): Record<string, unknown> };

const NAMES = ["pageSize", "filter", "a.b", "x-y_0", "0", "12", "__proto__", "constructor", "toString"];
const VALUES = ["", "50", "a+b", "%22work%22%20in%20tags", "%2B", "%25", "%", "%2", "%E2%9C%93", "%E2", "%FF", "é", "=", "a=b", "%3D%26", "?/:,", "%5B", "]", "a]=b", "%5d="];

function agrees(text: string): void {
	const plain = plainQuery(text);
	if (plain === undefined) return;
	const parsed = qs.parse(text);
	expect(plain).toStrictEqual(parsed);
	expect(Object.keys(plain)).toEqual(Object.keys(parsed));
}

test("a plain query reads as qs reads it: every pair of names and values, and every such pair of pairs", () => {
	for (const name of NAMES) for (const value of VALUES) agrees(`${name}=${value}`);
	for (const first of NAMES) {
		for (const second of NAMES) for (const value of VALUES) agrees(`${first}=${value}&${second}=${value}+1`);
	}
});

test("queries qs reads another way are left to it", () => {
	for (const text of ["", "a", "a=1&", "&a=1", "=1", "a=1&a=2", "a[b]=1", "a%5Bb%5D=1", "a=x]=y", "__proto__=1", "toString=1", "a b=1", "é=1"]) {
		expect(plainQuery(text)).toBeUndefined();
	}
	expect(plainQuery(Array.from({ length: 101 }, (_, i) => `p${i}=1`).join("&"))).toBeUndefined();
});

test("the common queries", () => {
	expect(plainQuery("pageSize=50")).toEqual({ pageSize: "50" });
	expect(plainQuery("pageSize=50&filter=%22work%22%20in%20tags")).toEqual({ pageSize: "50", filter: '"work" in tags' });
	expect(plainQuery("q=a+b%2Bc&bad=%E2")).toEqual({ q: "a b+c", bad: "%E2" });
});
