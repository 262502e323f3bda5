import { invalidArgument } from "../../shared/errors.js";
import { checkUrlLength, parseHttpUrl } from "../../shared/free-form.js";
import { ID_PATTERN } from "../../shared/ids.js";
import { stringOf } from "../../shared/request-message.js";

export function checkUsername(value: unknown, field: string): string {
	const username = stringOf(value, field).trim();
	if (username === "") throw invalidArgument(`${field} is required`);
	if (!ID_PATTERN.test(username)) throw invalidArgument(`${field} must be 1-36 letters, digits or hyphens, starting and ending with a letter or digit`);
	return username;
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

export function checkEmail(value: unknown, field: string): string {
	const email = stringOf(value, field).trim();
	if (email !== "" && (email.length > 256 || !EMAIL.test(email))) throw invalidArgument(`${field} is not an e-mail address`);
	return email;
}

const TEXT_MAX = 4096;

export function checkText(value: unknown, field: string): string {
	const text = stringOf(value, field);
	if (text.length > TEXT_MAX) throw invalidArgument(`${field} must be at most ${TEXT_MAX} characters`);
	return text;
}

/** An avatar image sent as a data URI, decoded (contract 19). */
export const MAX_AVATAR_DATA_BYTES = 2 * 1024 * 1024;

/** The data URIs an avatar may be stored as: the image subtype, then the base64 bytes. */
export const DATA_IMAGE = /^data:image\/(png|jpeg|gif|webp);base64,([A-Za-z0-9+/]+={0,2})$/;

/** `avatar_url`: empty, an http(s) URL, or a base64 data URI of a PNG, JPEG, GIF or WebP image (contract 2.4). */
export function checkAvatarUrl(value: unknown, field: string): string {
	const url = stringOf(value, field).trim();
	if (url === "") return url;
	const data = DATA_IMAGE.exec(url);
	if (data !== null) {
		const encoded = data[2] as string;
		const bytes = (encoded.length * 3) / 4 - (encoded.endsWith("==") ? 2 : encoded.endsWith("=") ? 1 : 0);
		if (bytes > MAX_AVATAR_DATA_BYTES) throw invalidArgument(`${field} holds an image of ${Math.floor(bytes)} bytes, more than ${MAX_AVATAR_DATA_BYTES}`);
		return url;
	}
	checkUrlLength(url, field);
	if (parseHttpUrl(url) !== null) return url;
	throw invalidArgument(`${field} must be an http(s) URL or a data:image/(png|jpeg|gif|webp);base64 URI`);
}
