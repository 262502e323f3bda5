import { Parser } from "htmlparser2";
import { MAX_URL_BYTES, parseHttpUrl } from "../../../shared/free-form.js";

export interface PageMetadata {
	title: string;
	description: string;
	image: string;
}

const TITLE_MAX_CHARS = 200;
const DESCRIPTION_MAX_CHARS = 300;

function clip(text: string, max: number): string {
	const clean = text.replace(/\s+/g, " ").trim();
	const chars = [...clean];
	return chars.length <= max ? clean : chars.slice(0, max).join("");
}

/** An absolute http(s) URL for `raw` against `base`, at most 2048 bytes, else "". */
function absoluteImage(raw: string | undefined, base: string): string {
	if (raw === undefined || raw.trim() === "") return "";
	const resolved = parseHttpUrl(raw.trim(), base);
	if (resolved === null) return "";
	const href = resolved.href;
	return Buffer.byteLength(href) <= MAX_URL_BYTES ? href : "";
}

/**
 * Title, description and image of an HTML page (contract 7.12): Open Graph first, then
 * Twitter cards, then `<title>` and `<meta name="description">`. The first value of each
 * tag counts; `pageUrl` resolves a relative image.
 */
export function extractMetadata(html: string, pageUrl: string): PageMetadata {
	const meta = new Map<string, string>();
	let title: string | undefined;
	let titleText = "";
	let inTitle = false;
	let inSvg = 0;
	const parser = new Parser(
		{
			onopentag(name, attributes) {
				if (name === "svg") inSvg++;
				if (name === "title" && title === undefined && inSvg === 0) {
					inTitle = true;
					titleText = "";
				}
				if (name === "meta") {
					const key = (attributes.property ?? attributes.name ?? "").trim().toLowerCase();
					const content = attributes.content;
					if (key !== "" && content !== undefined && !meta.has(key)) meta.set(key, content);
				}
			},
			ontext(text) {
				if (inTitle) titleText += text;
			},
			onclosetag(name) {
				if (name === "svg" && inSvg > 0) inSvg--;
				if (name === "title" && inTitle) {
					inTitle = false;
					title = titleText;
				}
			}
		},
		{ decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true }
	);
	parser.write(html);
	parser.end();
	if (inTitle && title === undefined) title = titleText;

	const first = (...keys: string[]) => keys.map(key => meta.get(key)).find(value => value !== undefined && value.trim() !== "");
	return {
		title: clip(first("og:title", "twitter:title") ?? title ?? "", TITLE_MAX_CHARS),
		description: clip(first("og:description", "twitter:description", "description") ?? "", DESCRIPTION_MAX_CHARS),
		image: absoluteImage(first("og:image", "og:image:url", "twitter:image", "twitter:image:src"), pageUrl)
	};
}
