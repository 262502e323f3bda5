import { parseTimestamp } from "../../../shared/proto-json.js";
import { fieldOf, isMessage, type JsonMessage } from "../../../shared/request-message.js";

/**
 * The webhook payload's `memo` as upstream memos v0.30.0 sends it: internal/webhook `Post`
 * json.Marshal's its Go `*v1pb.Memo`, so a receiver written for upstream reads encoding/json of
 * the protoc-gen-go structs, not proto3 JSON: snake_case keys from the struct tags, every field
 * `omitempty` (false, 0, "" and empty lists left out; a set message or optional field, a Go
 * pointer, is kept even when empty), enums as numbers, int64 as JSON numbers,
 * google.protobuf.Timestamp as `{"seconds","nanos"}` (both omitempty), keys in struct order.
 * Only the fields upstream's structs have; `content` of an Attachment is never in our memos.
 * proto3 `optional` fields (`parent`, `location`, Attachment `memo`) are plain Go pointers in
 * the generated structs, not oneof wrappers, so they marshal as their value.
 * Input: our API's Memo message (contract 4.1) as proto3 JSON; fields read by JSON or snake_case name.
 */

type GoJson = Record<string, unknown>;

// Enum numbers of proto/api/v1 at v0.30.0.
/** common.proto State. */
const STATE: Record<string, number> = { STATE_UNSPECIFIED: 0, NORMAL: 1, ARCHIVED: 2 };
/** memo_service.proto Visibility; SPACE is ours (contract 15: an additive value), numbered after upstream's last. */
const VISIBILITY: Record<string, number> = { VISIBILITY_UNSPECIFIED: 0, PRIVATE: 1, PROTECTED: 2, PUBLIC: 3, SPACE: 4 };
/** memo_service.proto MemoRelation.Type. */
const RELATION_TYPE: Record<string, number> = { TYPE_UNSPECIFIED: 0, REFERENCE: 1, COMMENT: 2 };
/** attachment_service.proto MotionMediaFamily and MotionMediaRole. */
const MOTION_FAMILY: Record<string, number> = { MOTION_MEDIA_FAMILY_UNSPECIFIED: 0, APPLE_LIVE_PHOTO: 1, ANDROID_MOTION_PHOTO: 2 };
const MOTION_ROLE: Record<string, number> = { MOTION_MEDIA_ROLE_UNSPECIFIED: 0, STILL: 1, VIDEO: 2, CONTAINER: 3 };

const str = (value: unknown): string => (typeof value === "string" ? value : "");
const bool = (value: unknown): boolean => value === true;
const double = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) ? value : 0);
const messages = (value: unknown): JsonMessage[] => (Array.isArray(value) ? value.filter(isMessage) : []);

/** proto3 JSON int64: a number or a decimal string. */
function int64(value: unknown): number {
	if (typeof value === "number" && Number.isInteger(value)) return value;
	return typeof value === "string" && /^-?\d+$/.test(value) ? Number(value) : 0;
}

/**
 * An enum given by name or number (motionMedia is stored as the client gave it). A name the
 * proto lacks reads as 0, unspecified: upstream's Go struct could not have held it.
 */
function enumNumber(value: unknown, numbers: Record<string, number>): number {
	if (typeof value === "number" && Number.isInteger(value)) return value;
	return typeof value === "string" && Object.hasOwn(numbers, value) ? numbers[value] : 0;
}

/** A timestamp as timestamppb.Timestamp marshals: seconds since the epoch, nanos 0…999,999,999. */
function timestamp(value: unknown, field: string): GoJson {
	const ms = parseTimestamp(value, field);
	const seconds = Math.floor(ms / 1000);
	return omitEmpty({ seconds, nanos: (ms - seconds * 1000) * 1_000_000 });
}

/** A set Go pointer's value: `omitempty` keeps it even when it is `""` or `{}`. */
class Pointer {
	constructor(readonly value: unknown) {}
}

/** A pointer field: its converted value when set, nil (left out) when not. */
function pointer(value: unknown, convert: (set: unknown) => unknown): Pointer | undefined {
	return value === undefined || value === null ? undefined : new Pointer(convert(value));
}

/** The fields encoding/json writes under `omitempty`: no nil pointer, false, 0, "" or empty list. */
function omitEmpty(fields: GoJson): GoJson {
	const kept: GoJson = {};
	for (const [key, value] of Object.entries(fields)) {
		if (value instanceof Pointer) kept[key] = value.value;
		else if (!(value === undefined || value === false || value === 0 || value === "" || (Array.isArray(value) && value.length === 0))) kept[key] = value;
	}
	return kept;
}

function property(value: unknown): GoJson {
	const p = isMessage(value) ? value : {};
	return omitEmpty({
		has_link: bool(fieldOf(p, "has_link")),
		has_task_list: bool(fieldOf(p, "has_task_list")),
		has_code: bool(fieldOf(p, "has_code")),
		has_incomplete_tasks: bool(fieldOf(p, "has_incomplete_tasks")),
		title: str(fieldOf(p, "title"))
	});
}

function location(value: unknown): GoJson {
	const l = isMessage(value) ? value : {};
	return omitEmpty({ placeholder: str(fieldOf(l, "placeholder")), latitude: double(fieldOf(l, "latitude")), longitude: double(fieldOf(l, "longitude")) });
}

function motionMedia(value: unknown): GoJson {
	const m = isMessage(value) ? value : {};
	return omitEmpty({
		family: enumNumber(fieldOf(m, "family"), MOTION_FAMILY),
		role: enumNumber(fieldOf(m, "role"), MOTION_ROLE),
		group_id: str(fieldOf(m, "group_id")),
		presentation_timestamp_us: int64(fieldOf(m, "presentation_timestamp_us")),
		has_embedded_video: bool(fieldOf(m, "has_embedded_video"))
	});
}

function attachment(a: JsonMessage, i: number): GoJson {
	return omitEmpty({
		name: str(fieldOf(a, "name")),
		create_time: pointer(fieldOf(a, "create_time"), t => timestamp(t, `memo.attachments[${i}].createTime`)),
		filename: str(fieldOf(a, "filename")),
		external_link: str(fieldOf(a, "external_link")),
		type: str(fieldOf(a, "type")),
		size: int64(fieldOf(a, "size")),
		memo: pointer(fieldOf(a, "memo"), str),
		motion_media: pointer(fieldOf(a, "motion_media"), motionMedia)
	});
}

function relationMemo(value: unknown): GoJson {
	const m = isMessage(value) ? value : {};
	return omitEmpty({ name: str(fieldOf(m, "name")), snippet: str(fieldOf(m, "snippet")) });
}

function relation(r: JsonMessage): GoJson {
	return omitEmpty({
		memo: pointer(fieldOf(r, "memo"), relationMemo),
		related_memo: pointer(fieldOf(r, "related_memo"), relationMemo),
		type: enumNumber(fieldOf(r, "type"), RELATION_TYPE)
	});
}

/** Upstream fills `content_id` with the memo's name, which ours carries in the reaction's name. */
function reaction(r: JsonMessage, i: number): GoJson {
	const name = str(fieldOf(r, "name"));
	return omitEmpty({
		name,
		creator: str(fieldOf(r, "creator")),
		content_id: /^memos\/[^/]+(?=\/reactions\/)/.exec(name)?.[0] ?? "",
		reaction_type: str(fieldOf(r, "reaction_type")),
		create_time: pointer(fieldOf(r, "create_time"), t => timestamp(t, `memo.reactions[${i}].createTime`))
	});
}

/** Our API's Memo as upstream's webhook payload carries it (v1pb.Memo field order). */
export function toUpstreamMemoJson(memo: JsonMessage): GoJson {
	return omitEmpty({
		name: str(fieldOf(memo, "name")),
		state: enumNumber(fieldOf(memo, "state"), STATE),
		creator: str(fieldOf(memo, "creator")),
		create_time: pointer(fieldOf(memo, "create_time"), t => timestamp(t, "memo.createTime")),
		update_time: pointer(fieldOf(memo, "update_time"), t => timestamp(t, "memo.updateTime")),
		content: str(fieldOf(memo, "content")),
		visibility: enumNumber(fieldOf(memo, "visibility"), VISIBILITY),
		tags: Array.isArray(fieldOf(memo, "tags")) ? (fieldOf(memo, "tags") as unknown[]).filter(tag => typeof tag === "string") : [],
		pinned: bool(fieldOf(memo, "pinned")),
		attachments: messages(fieldOf(memo, "attachments")).map(attachment),
		relations: messages(fieldOf(memo, "relations")).map(relation),
		reactions: messages(fieldOf(memo, "reactions")).map(reaction),
		property: pointer(fieldOf(memo, "property"), property),
		parent: pointer(fieldOf(memo, "parent"), str),
		snippet: str(fieldOf(memo, "snippet")),
		location: pointer(fieldOf(memo, "location"), location)
	});
}

/**
 * JSON text as encoding/json writes it: JSON.stringify's, with `<`, `>`, `&`, U+2028 and U+2029
 * escaped as `\u003c`… (json.Marshal's HTML-safe escaping). They occur only inside strings, so the
 * parsed value is the same; the bytes, which the signature covers, match upstream's.
 */
export function goJsonText(value: unknown): string {
	return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, c => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
