import type { Logger, ServiceBroker } from "moleculer";
import { isActionNotYetOffered } from "../../shared/runtime/call-failures.js";
import type { InstanceSettingKey } from "../../shared/names.js";
import { uploadLimitBytes } from "../attachments/attachments.contract.js";
import { instanceActions } from "../instance/instance.contract.js";
import { contentLimitOf } from "../memos/memos.contract.js";
import { MAX_BODY_LIMIT_BYTES, type SettingLimits } from "./body-limits.js";

type SettingReader = (key: InstanceSettingKey) => Promise<Record<string, unknown>>;

/**
 * The body limits that follow the instance settings, read without secrets (`instance.settingView`).
 * While a rolling deploy still runs only instance nodes that predate that action, bodies may be
 * as large as any operation's (MAX_BODY_LIMIT_BYTES), said once in the log: the memos and
 * attachments services still hold the content to the settings' limits, and the large-body slots
 * still bound the gateway's memory. Any other failure fails the request, as before.
 */
export function settingLimits(broker: Pick<ServiceBroker, "registry">, read: SettingReader, logger: Pick<Logger, "warn">): SettingLimits {
	let warned = false;
	const limitOf = async (key: InstanceSettingKey, limit: (value: Record<string, unknown>) => number): Promise<number> => {
		try {
			return limit(await read(key));
		} catch (err) {
			if (!isActionNotYetOffered(broker, instanceActions.settingView, err)) throw err;
			if (!warned) logger.warn(`the running instance nodes do not offer ${instanceActions.settingView.name} yet (a rolling deploy): body limits that follow a setting are ${MAX_BODY_LIMIT_BYTES} bytes until one does`);
			warned = true;
			return MAX_BODY_LIMIT_BYTES;
		}
	};
	return {
		memoContentBytes: () => limitOf("MEMO_RELATED", contentLimitOf),
		attachmentBytes: () => limitOf("STORAGE", uploadLimitBytes)
	};
}
