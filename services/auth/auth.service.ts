import type { Context, ServiceSchema, ServiceSettingSchema } from "moleculer";
import type { Collection } from "../../shared/store/document-store.js";
import { documentsOf } from "../../shared/runtime/resources.js";
import { USERS, type UserDoc } from "./user-doc.js";
import { toUserJson } from "./user-json.js";

interface AuthMethods {
	users(): Collection<UserDoc>;
}

/** What other services need of a user. */
export interface UserRef {
	id: string;
	username: string;
	role: "ADMIN" | "USER";
	state: "NORMAL" | "ARCHIVED";
}

export interface SetupState {
	userCount: number;
	/** The earliest-created ADMIN as a User message, or null. */
	admin: Record<string, unknown> | null;
}

const AuthService: ServiceSchema<ServiceSettingSchema, AuthMethods> = {
	name: "auth",

	actions: {
		/**
		 * Users by internal id or by username, for services that store user ids and show
		 * `users/{username}` names (one call per request, never one per item).
		 */
		lookupUsers: {
			visibility: "public",
			params: {
				ids: { type: "array", items: "string", optional: true },
				usernames: { type: "array", items: "string", optional: true }
			},
			async handler(ctx: Context<{ ids?: string[]; usernames?: string[] }>): Promise<UserRef[]> {
				const { ids = [], usernames = [] } = ctx.params;
				if (ids.length === 0 && usernames.length === 0) return [];
				const found = await this.users().find(
					{ $or: [{ _id: { $in: ids } }, { username: { $in: usernames } }] },
					{ projection: { username: 1, role: 1, state: 1 } }
				);
				return found.map(u => ({ id: u._id, username: u.username, role: u.role, state: u.state }));
			}
		},

		/** What the instance profile needs to know of the users (contract 4.10). */
		setupState: {
			visibility: "public",
			async handler(): Promise<SetupState> {
				const users = this.users();
				const [userCount, admins] = await Promise.all([
					users.count({}),
					users.find({ role: "ADMIN" }, { sort: { createTime: 1, _id: 1 }, limit: 1 })
				]);
				const admin = admins[0];
				return { userCount, admin: admin ? toUserJson(admin, false) : null };
			}
		}
	},

	methods: {
		users(): Collection<UserDoc> {
			return documentsOf(this.broker).collection<UserDoc>(USERS);
		}
	},

	async started() {
		await this.users().ensureIndex({ fields: { username: 1 }, unique: true });
		await this.users().ensureIndex({ fields: { role: 1, createTime: 1 } });
	}
};

export default AuthService;
