import { fileTypeFromBuffer } from "file-type";

/** The content types a transcription accepts (contract 12); parameters are ignored. */
export const AUDIO_TYPES: ReadonlySet<string> = new Set([
	"audio/aac",
	"audio/aiff",
	"audio/flac",
	"audio/mpeg",
	"audio/mp3",
	"audio/mp4",
	"audio/mpga",
	"audio/ogg",
	"audio/wav",
	"audio/x-wav",
	"audio/x-flac",
	"audio/x-m4a",
	"audio/webm",
	"video/mp4",
	"video/mpeg",
	"video/webm"
]);

const BY_EXTENSION: Readonly<Record<string, string>> = {
	aac: "audio/aac",
	aif: "audio/aiff",
	aiff: "audio/aiff",
	flac: "audio/flac",
	mp3: "audio/mpeg",
	mpga: "audio/mpga",
	m4a: "audio/x-m4a",
	mp4: "audio/mp4",
	oga: "audio/ogg",
	ogg: "audio/ogg",
	opus: "audio/ogg",
	wav: "audio/wav",
	webm: "audio/webm",
	mpeg: "video/mpeg"
};

/** `audio/webm; codecs=opus` → `audio/webm`. */
export function essence(contentType: string): string {
	return (contentType.split(";")[0] ?? "").trim().toLowerCase();
}

export function typeFromFilename(filename: string): string | undefined {
	const dot = filename.lastIndexOf(".");
	return dot < 0 ? undefined : BY_EXTENSION[filename.slice(dot + 1).toLowerCase()];
}

/** The audio's content type: the one given, else derived from the filename, else sniffed from the bytes. */
export async function resolveAudioType(given: string, filename: string, bytes: Uint8Array): Promise<string | undefined> {
	if (given.trim() !== "") return essence(given);
	return typeFromFilename(filename) ?? (await fileTypeFromBuffer(bytes))?.mime;
}

/** A filename for audio sent without one: providers read the format from the extension. */
export function defaultFilename(contentType: string): string {
	const subtype = contentType.split("/")[1] ?? "";
	const ext = { mpeg: "mp3", "x-m4a": "m4a", "x-wav": "wav", "x-flac": "flac" }[subtype] ?? subtype;
	return `audio.${ext}`;
}
