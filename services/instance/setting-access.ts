import type { Caller } from "../../shared/caller.js";
import { permissionDenied, unauthenticated } from "../../shared/errors.js";
import type { InstanceSettingKey } from "../../shared/names.js";
import type { SettingView } from "./setting-json.js";

/** Keys anyone may read on every instance: the sign-in page needs them (contract 11.2). */
const PUBLIC_KEYS: readonly InstanceSettingKey[] = ["GENERAL", "MEMO_RELATED", "TAGS", "ACCESS"];

/** How `user` may see setting `key`, or the error that refuses it (contract 11.2). */
export function settingReadView(key: InstanceSettingKey, user: Caller | null | undefined): SettingView {
	const view: SettingView = user?.role === "ADMIN" ? "admin" : "member";
	if (PUBLIC_KEYS.includes(key)) return view;
	if (!user) throw unauthenticated();
	if (key === "AI") return view;
	if (view !== "admin") throw permissionDenied(`only admins may read the ${key} setting`);
	return view;
}

/** Admin-only operations: anonymous UNAUTHENTICATED, others PERMISSION_DENIED. */
export function requireAdmin(user: Caller | null | undefined, what: string): Caller {
	if (!user) throw unauthenticated();
	if (user.role !== "ADMIN") throw permissionDenied(`only admins may ${what}`);
	return user;
}
