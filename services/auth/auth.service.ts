import type { ServiceSchema, ServiceSettingSchema } from "moleculer";
import type { Collection } from "../../shared/store/document-store.js";
import { documentsOf } from "../../shared/runtime/resources.js";
import { USERS, type UserDoc } from "./user-doc.js";
import { toUserJson } from "./user-json.js";

interface AuthMethods {
	users(): Collection<UserDoc>;
}

export interface SetupState {
	userCount: number;
	/** The earliest-created ADMIN as a User message, or null. */
	admin: Record<string, unknown> | null;
}

const AuthService: ServiceSchema<ServiceSettingSchema, AuthMethods> = {
	name: "auth",

	actions: {
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
