import type { ApiCompat } from "../../shared/runtime/config.js";
import { VERSION } from "../../shared/version.js";
import type { SetupState } from "../auth/auth.contract.js";
import { readAccessMode } from "./access-mode.js";
import type { AccessMode } from "./instance.contract.js";
import type { InstanceDeps } from "./instance-deps.js";

/** The InstanceProfile message of contract 4.10 and the API_COMPAT mode (contract 18); `admin` is omitted when there is none. */
export function toProfileJson(setup: SetupState, accessMode: AccessMode, env: { instanceUrl: string; commit: string; apiCompat: ApiCompat }): Record<string, unknown> {
	return {
		version: VERSION,
		demo: false,
		instanceUrl: env.instanceUrl,
		...(setup.admin ? { admin: setup.admin } : {}),
		commit: env.commit,
		needsSetup: setup.userCount === 0,
		accessMode,
		apiCompat: env.apiCompat
	};
}

/** GetInstanceProfile (contract 4.10): open to everyone, from cached facts. */
export async function getProfile(deps: InstanceDeps): Promise<Record<string, unknown>> {
	const [setup, accessMode] = await Promise.all([deps.caches.setup.getOrLoad("setup", () => deps.peers.setupState()), readAccessMode(deps)]);
	return toProfileJson(setup, accessMode, deps.env);
}
