import { invalidArgument } from "../../shared/errors.js";
import { ID_PATTERN } from "../../shared/ids.js";

/** The request's `user` message, or {} when absent; anything but an object is INVALID_ARGUMENT. */
export function userMessage(value: unknown): Record<string, unknown> {
	if (value === undefined || value === null) return {};
	if (typeof value !== "object" || Array.isArray(value)) throw invalidArgument("user must be an object");
	return value as Record<string, unknown>;
}

/** A string field, "" when absent. */
export function optionalString(value: unknown, field: string): string {
	if (value === undefined || value === null) return "";
	if (typeof value !== "string") throw invalidArgument(`${field} must be a string`);
	return value;
}

export function checkUsername(value: unknown, field: string): string {
	const username = optionalString(value, field).trim();
	if (username === "") throw invalidArgument(`${field} is required`);
	if (!ID_PATTERN.test(username)) throw invalidArgument(`${field} must be 1-36 letters, digits or hyphens, starting and ending with a letter or digit`);
	return username;
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

export function checkEmail(value: unknown, field: string): string {
	const email = optionalString(value, field).trim();
	if (email !== "" && (email.length > 256 || !EMAIL.test(email))) throw invalidArgument(`${field} is not an e-mail address`);
	return email;
}

const TEXT_MAX = 4096;

export function checkText(value: unknown, field: string): string {
	const text = optionalString(value, field);
	if (text.length > TEXT_MAX) throw invalidArgument(`${field} must be at most ${TEXT_MAX} characters`);
	return text;
}

/** The data URIs an avatar may be stored as: the image subtype, then the base64 bytes. */
export const DATA_IMAGE = /^data:image\/(png|jpeg|gif|webp);base64,([A-Za-z0-9+/]+={0,2})$/;

/** `avatar_url`: empty, an http(s) URL, or a base64 data URI of a PNG, JPEG, GIF or WebP image (contract 2.4). */
export function checkAvatarUrl(value: unknown, field: string): string {
	const url = optionalString(value, field).trim();
	if (url === "" || DATA_IMAGE.test(url)) return url;
	let parsed: URL | undefined;
	try {
		parsed = new URL(url);
	} catch {
		parsed = undefined;
	}
	if (parsed && (parsed.protocol === "http:" || parsed.protocol === "https:") && parsed.hostname !== "") return url;
	throw invalidArgument(`${field} must be an http(s) URL or a data:image/(png|jpeg|gif|webp);base64 URI`);
}
