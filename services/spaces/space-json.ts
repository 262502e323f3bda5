import { formatMemberName, formatName } from "../../shared/names.js";
import { toTimestamp } from "../../shared/proto-json.js";
import type { MemberDoc, SpaceDoc } from "./space-doc.js";

/** The Space message (contract 4.7); `membership` only when the caller is a member. */
export function toSpaceJson(space: SpaceDoc, creator: string, membership: MemberDoc | null): Record<string, unknown> {
	const json: Record<string, unknown> = {
		name: formatName("space", space._id),
		displayName: space.displayName,
		description: space.description,
		creator,
		createTime: toTimestamp(space.createTime),
		updateTime: toTimestamp(space.updateTime),
		memberCount: space.memberCount
	};
	if (membership !== null) json.membership = { role: membership.role, joinTime: toTimestamp(membership.joinTime) };
	return json;
}

/** The SpaceMember message (contract 4.7). */
export function toMemberJson(member: MemberDoc, username: string): Record<string, unknown> {
	return {
		name: formatMemberName(member.spaceId, username),
		user: formatName("user", username),
		role: member.role,
		joinTime: toTimestamp(member.joinTime)
	};
}
