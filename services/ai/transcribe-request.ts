import type { Readable } from "node:stream";
import { STREAM_LENGTH_PARAM } from "../../shared/contract.js";
import { invalidArgument } from "../../shared/errors.js";
import { fieldOf, optionalMessageOf, stringOf } from "../../shared/request-message.js";
import { collectBytes } from "../../shared/runtime/stream-bytes.js";
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

/**
 * The TranscribeRequest's audio, checked in the contract's order (the caller is already
 * known to be signed in): present, no `uri`, content non-empty, at most 25 MiB, filename
 * at most 255 characters, an accepted content type. `audio.content` arrives decoded as the
 * call's stream (the gateway's bytesField), its length in `$streamLength`; it is read only
 * once the checks that need no bytes have passed.
 */
export async function parseTranscribeRequest(params: Obj, content: Readable | null): Promise<Audio> {
	const input = optionalMessageOf(params.audio, "audio");
	if (input === undefined) throw invalidArgument("audio is required");
	if (stringOf(fieldOf(input, "uri"), "audio.uri") !== "") throw invalidArgument("audio.uri is not supported; send the bytes in audio.content");
	const length = params[STREAM_LENGTH_PARAM];
	if (content === null || typeof length !== "number" || length === 0) throw invalidArgument("audio.content must not be empty");
	if (length > MAX_AUDIO_BYTES) throw invalidArgument("audio.content is larger than 25 MiB");
	const filename = stringOf(fieldOf(input, "filename"), "audio.filename");
	if ([...filename].length > MAX_FILENAME_CHARS) throw invalidArgument(`audio.filename must be at most ${MAX_FILENAME_CHARS} characters`);
	const bytes = await collectBytes(content, length);
	const given = stringOf(fieldOf(input, "contentType"), "audio.contentType");
	const contentType = await resolveAudioType(given, filename, bytes);
	if (contentType === undefined || !AUDIO_TYPES.has(contentType)) {
		throw invalidArgument(contentType === undefined ? "audio.contentType is missing and cannot be derived" : `audio.contentType ${JSON.stringify(contentType)} is not a supported audio type`);
	}
	return { bytes, filename: filename === "" ? defaultFilename(contentType) : filename, contentType };
}
