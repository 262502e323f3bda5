import { VERSION } from "../../shared/version.js";
import type { SetupState } from "../auth/auth.service.js";

export type AccessMode = "INSTANCE_ACCESS_MODE_PRIVATE" | "INSTANCE_ACCESS_MODE_PUBLIC";

/** The InstanceProfile message of contract 4.10; `admin` is omitted when there is none. */
export function toProfileJson(setup: SetupState, accessMode: AccessMode, env: { instanceUrl: string; commit: string }): Record<string, unknown> {
	return {
		version: VERSION,
		demo: false,
		instanceUrl: env.instanceUrl,
		...(setup.admin ? { admin: setup.admin } : {}),
		commit: env.commit,
		needsSetup: setup.userCount === 0,
		accessMode
	};
}
