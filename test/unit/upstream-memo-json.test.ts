import { goJsonText, toUpstreamMemoJson } from "../../services/auth/webhooks/upstream-memo-json.js";

/**
 * The webhook payload's memo as upstream v0.30.0 json.Marshal's its Go v1pb.Memo
 * (proto/gen/api/v1/memo_service.pb.go, attachment_service.pb.go). Expected objects written by
 * hand from the protos: keys are the struct tags (snake_case, all omitempty), enums numbers of
 * common.proto State (NORMAL = 1, ARCHIVED = 2), memo_service.proto Visibility (PRIVATE = 1,
 * PROTECTED = 2, PUBLIC = 3), MemoRelation.Type (REFERENCE = 1, COMMENT = 2),
 * attachment_service.proto MotionMediaFamily (APPLE_LIVE_PHOTO = 1), MotionMediaRole (VIDEO = 2);
 * timestamps timestamppb.Timestamp {seconds, nanos}.
 */

/** A Memo as our API answers it (contract 4.1), every field set. */
const apiMemo = {
	name: "memos/p1",
	state: "ARCHIVED",
	creator: "users/alice",
	createTime: "2025-03-01T09:30:00.000Z",
	updateTime: "2025-03-01T09:30:05.250Z",
	content: "# Plan <b> & more",
	visibility: "PROTECTED",
	tags: ["work", "work/q1"],
	pinned: true,
	attachments: [
		{
			name: "attachments/a1",
			createTime: "1970-01-01T00:00:00.000Z",
			filename: "clip.mov",
			externalLink: "",
			type: "video/quicktime",
			size: "1048576",
			memo: "memos/p1",
			space: null,
			motionMedia: { family: "APPLE_LIVE_PHOTO", role: "VIDEO", groupId: "g1", presentationTimestampUs: "1500000", hasEmbeddedVideo: false }
		}
	],
	relations: [
		{ memo: { name: "memos/p1", snippet: "Plan" }, relatedMemo: { name: "memos/r1", snippet: "" }, type: "REFERENCE" },
		{ memo: { name: "memos/c1", snippet: "reply" }, relatedMemo: { name: "memos/p1", snippet: "Plan" }, type: "COMMENT" }
	],
	reactions: [{ name: "memos/p1/reactions/Hk3v", creator: "users/bob", reactionType: "👍", createTime: "2025-03-01T10:00:00.000Z" }],
	property: { hasLink: true, hasTaskList: false, hasCode: true, hasIncompleteTasks: false, title: "Plan" },
	parent: "memos/root",
	snippet: "Plan",
	location: { placeholder: "Berlin", latitude: 52.52, longitude: 0 },
	space: "spaces/s1",
	deleteTime: "2025-03-02T00:00:00.000Z"
};

test("every field upstream's struct has, in its order, with its tags, enum numbers and {seconds, nanos}; ours (space, deleteTime) left out", () => {
	const got = toUpstreamMemoJson(apiMemo);
	expect(got).toEqual({
		name: "memos/p1", // field 1
		state: 2, // field 2, State ARCHIVED
		creator: "users/alice", // 3
		create_time: { seconds: 1740821400 }, // 4; nanos 0 omitted
		update_time: { seconds: 1740821405, nanos: 250000000 }, // 5
		content: "# Plan <b> & more", // 7
		visibility: 2, // 9, PROTECTED
		tags: ["work", "work/q1"], // 10
		pinned: true, // 11
		attachments: [
			{
				name: "attachments/a1", // Attachment 1
				create_time: {}, // 2: set, both parts zero
				filename: "clip.mov", // 3; external_link (5) "" omitted
				type: "video/quicktime", // 6
				size: 1048576, // 7, int64 as a JSON number
				memo: "memos/p1", // 8, optional string
				motion_media: { family: 1, role: 2, group_id: "g1", presentation_timestamp_us: 1500000 } // 9; has_embedded_video false omitted
			}
		],
		relations: [
			{ memo: { name: "memos/p1", snippet: "Plan" }, related_memo: { name: "memos/r1" }, type: 1 }, // MemoRelation 1, 2, 3
			{ memo: { name: "memos/c1", snippet: "reply" }, related_memo: { name: "memos/p1", snippet: "Plan" }, type: 2 }
		],
		// Reaction 1-5; content_id is the memo's name, as upstream fills it.
		reactions: [{ name: "memos/p1/reactions/Hk3v", creator: "users/bob", content_id: "memos/p1", reaction_type: "👍", create_time: { seconds: 1740823200 } }],
		property: { has_link: true, has_code: true, title: "Plan" }, // 15
		parent: "memos/root", // 16
		snippet: "Plan", // 17
		location: { placeholder: "Berlin", latitude: 52.52 } // 18; longitude 0 omitted
	});
	expect(Object.keys(got)).toEqual([
		"name", "state", "creator", "create_time", "update_time", "content", "visibility", "tags", "pinned",
		"attachments", "relations", "reactions", "property", "parent", "snippet", "location"
	]);
});

test("omitempty: false, 0, \"\" and empty lists left out; set messages kept even when empty; unset optional fields left out", () => {
	const got = toUpstreamMemoJson({
		name: "memos/m",
		state: "NORMAL",
		creator: "users/alice",
		createTime: "2025-03-01T09:30:00.000Z",
		updateTime: "2025-03-01T09:30:00.000Z",
		content: "",
		visibility: "PRIVATE",
		tags: [],
		pinned: false,
		attachments: [],
		relations: [],
		reactions: [],
		property: { hasLink: false, hasTaskList: false, hasCode: false, hasIncompleteTasks: false, title: "" },
		snippet: "",
		space: null
	});
	expect(got).toEqual({
		name: "memos/m",
		state: 1, // NORMAL
		creator: "users/alice",
		create_time: { seconds: 1740821400 },
		update_time: { seconds: 1740821400 },
		visibility: 1, // PRIVATE
		property: {} // a non-nil *Memo_Property with only zero fields
	});
});

test("an optional string set to \"\" is a non-nil pointer, so kept; PUBLIC is 3; SPACE, ours, is 4; a time before 1970 has positive nanos", () => {
	expect(toUpstreamMemoJson({ visibility: "PUBLIC", parent: "" })).toEqual({ visibility: 3, parent: "" });
	expect(toUpstreamMemoJson({ visibility: "SPACE" })).toEqual({ visibility: 4 });
	expect(toUpstreamMemoJson({ createTime: "1969-12-31T23:59:59.500Z" })).toEqual({ create_time: { seconds: -1, nanos: 500000000 } });
});

test("motion media stored as the client gave it: snake_case keys and enum numbers read too; names the proto lacks read as unspecified", () => {
	const attachment = (motionMedia: unknown) => toUpstreamMemoJson({ attachments: [{ name: "attachments/a", size: "0", motionMedia }] });
	expect(attachment({ family: 2, role: "CONTAINER", group_id: "g", presentation_timestamp_us: 7, has_embedded_video: true })).toEqual({
		attachments: [{ name: "attachments/a", motion_media: { family: 2, role: 3, group_id: "g", presentation_timestamp_us: 7, has_embedded_video: true } }]
	});
	expect(attachment({ family: "NOT_A_FAMILY", role: "STILL" })).toEqual({ attachments: [{ name: "attachments/a", motion_media: { role: 1 } }] });
});

test("JSON text with encoding/json's HTML-safe escapes; the parsed value is unchanged", () => {
	const value = { content: "a <b> & c \u2028 d \u2029" };
	const text = goJsonText(value);
	expect(text).toBe('{"content":"a \\u003cb\\u003e \\u0026 c \\u2028 d \\u2029"}');
	expect(JSON.parse(text)).toEqual(value);
});
