import { VERSION } from "../../shared/version.js";
import type { SetupState } from "../auth/auth.contract.js";
import type { AccessMode } from "./instance.contract.js";

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
