import { invalidArgument } from "../../shared/errors.js";
import { parseBytes } from "../../shared/proto-json.js";
import { AUDIO_TYPES, defaultFilename, resolveAudioType } from "./audio-type.js";

/** Contract 12 and 14: the audio a transcription takes. */
export const MAX_AUDIO_BYTES = 25 * 1024 * 1024;
export const MAX_FILENAME_CHARS = 255;

export interface Audio {
	bytes: Buffer;
	filename: string;
	contentType: string;
}

type Obj = Record<string, unknown>;

function optionalString(input: Obj, camel: string, snake: string, field: string): string {
	const value = input[camel] ?? input[snake];
	if (value === undefined || value === null) return "";
	if (typeof value !== "string") throw invalidArgument(`${field} must be a string`);
	return value;
}

/** Bytes a base64 text decodes to, without decoding it. */
function decodedLength(base64: string): number {
	let end = base64.length;
	while (end > 0 && base64[end - 1] === "=") end--;
	return Math.floor((end * 3) / 4);
}

/**
 * The TranscribeRequest's audio, checked in the contract's order (the caller is already
 * known to be signed in): present, no `uri`, content non-empty, at most 25 MiB, filename
 * at most 255 characters, an accepted content type. The base64 is decoded once.
 */
export async function parseTranscribeRequest(params: Obj): Promise<Audio> {
	const audio = params.audio;
	if (audio === undefined || audio === null) throw invalidArgument("audio is required");
	if (typeof audio !== "object" || Array.isArray(audio)) throw invalidArgument("audio must be an object");
	const input = audio as Obj;
	if (optionalString(input, "uri", "uri", "audio.uri") !== "") throw invalidArgument("audio.uri is not supported; send the bytes in audio.content");
	const content = input.content;
	if (content === undefined || content === null || content === "") throw invalidArgument("audio.content must not be empty");
	if (typeof content !== "string") throw invalidArgument("audio.content must be base64");
	if (decodedLength(content) > MAX_AUDIO_BYTES) throw invalidArgument("audio.content is larger than 25 MiB");
	const bytes = parseBytes(content, "audio.content");
	if (bytes.length === 0) throw invalidArgument("audio.content must not be empty");
	const filename = optionalString(input, "filename", "filename", "audio.filename");
	if ([...filename].length > MAX_FILENAME_CHARS) throw invalidArgument(`audio.filename must be at most ${MAX_FILENAME_CHARS} characters`);
	const given = optionalString(input, "contentType", "content_type", "audio.contentType");
	const contentType = await resolveAudioType(given, filename, bytes);
	if (contentType === undefined || !AUDIO_TYPES.has(contentType)) {
		throw invalidArgument(contentType === undefined ? "audio.contentType is missing and cannot be derived" : `audio.contentType ${JSON.stringify(contentType)} is not a supported audio type`);
	}
	return { bytes, filename: filename === "" ? defaultFilename(contentType) : filename, contentType };
}
