import type { InstanceSettingKey } from "../../shared/names.js";

/**
 * The messages of the instance settings (contract 4.12), described once so that reading
 * request bodies, writing responses and checking update masks follow the same fields.
 * Field names are the lowerCamelCase JSON names; the snake_case ones are derived.
 */
export type FieldSpec =
	| { kind: "bool" }
	| { kind: "string"; secret?: true }
	| { kind: "int32" }
	| { kind: "int64" }
	/** `optional` is a wrapper type (google.protobuf.FloatValue): omitted when unset. */
	| { kind: "float"; optional?: true }
	/** `names` is indexed by the enum number; names[0] is the zero value. */
	| { kind: "enum"; names: readonly string[] }
	| { kind: "message"; fields: MessageSpec }
	| { kind: "repeated"; of: FieldSpec }
	| { kind: "map"; of: FieldSpec }
	/** Computed on output, ignored on input. */
	| { kind: "output" };

export type MessageSpec = Readonly<Record<string, FieldSpec>>;

const str: FieldSpec = { kind: "string" };
const secret: FieldSpec = { kind: "string", secret: true };
const bool: FieldSpec = { kind: "bool" };
const int32: FieldSpec = { kind: "int32" };

export const STORAGE_TYPES = ["STORAGE_TYPE_UNSPECIFIED", "DATABASE", "LOCAL", "S3"] as const;
export const AI_PROVIDER_TYPES = ["TYPE_UNSPECIFIED", "OPENAI", "GEMINI"] as const;
export const ACCESS_MODES = ["INSTANCE_ACCESS_MODE_UNSPECIFIED", "INSTANCE_ACCESS_MODE_PRIVATE", "INSTANCE_ACCESS_MODE_PUBLIC"] as const;

const S3_CONFIG: MessageSpec = {
	accessKeyId: str,
	accessKeySecret: secret,
	endpoint: str,
	region: str,
	bucket: str,
	usePathStyle: bool,
	insecureSkipTlsVerify: bool
};

const COLOR: MessageSpec = {
	red: { kind: "float" },
	green: { kind: "float" },
	blue: { kind: "float" },
	alpha: { kind: "float", optional: true }
};

export const SETTING_SPECS: Record<InstanceSettingKey, MessageSpec> = {
	GENERAL: {
		disallowUserRegistration: bool,
		disallowPasswordAuth: bool,
		additionalScript: str,
		additionalStyle: str,
		customProfile: { kind: "message", fields: { title: str, description: str, logoUrl: str } },
		weekStartDayOffset: int32,
		disallowChangeUsername: bool,
		disallowChangeNickname: bool
	},
	STORAGE: {
		storageType: { kind: "enum", names: STORAGE_TYPES },
		filepathTemplate: str,
		uploadSizeLimitMb: { kind: "int64" },
		s3Config: { kind: "message", fields: S3_CONFIG },
		storages: {
			kind: "repeated",
			of: {
				kind: "message",
				fields: { id: str, name: str, type: { kind: "enum", names: STORAGE_TYPES }, s3Config: { kind: "message", fields: S3_CONFIG } }
			}
		},
		defaultStorageId: str
	},
	MEMO_RELATED: {
		contentLengthLimit: int32,
		enableDoubleClickEdit: bool,
		reactions: { kind: "repeated", of: str }
	},
	TAGS: {
		tags: {
			kind: "map",
			of: { kind: "message", fields: { backgroundColor: { kind: "message", fields: COLOR }, blurContent: bool } }
		}
	},
	NOTIFICATION: {
		email: {
			kind: "message",
			fields: {
				enabled: bool,
				smtpHost: str,
				smtpPort: int32,
				smtpUsername: str,
				smtpPassword: secret,
				fromEmail: str,
				fromName: str,
				replyTo: str,
				useTls: bool,
				useSsl: bool
			}
		}
	},
	AI: {
		providers: {
			kind: "repeated",
			of: {
				kind: "message",
				fields: {
					id: str,
					title: str,
					type: { kind: "enum", names: AI_PROVIDER_TYPES },
					endpoint: str,
					apiKey: secret,
					apiKeySet: { kind: "output" },
					apiKeyHint: { kind: "output" }
				}
			}
		},
		transcription: { kind: "message", fields: { providerId: str, model: str, language: str, prompt: str } }
	},
	ACCESS: {
		accessMode: { kind: "enum", names: ACCESS_MODES }
	}
};

/** The JSON field of InstanceSetting that carries each key's value. */
export const VALUE_FIELDS: Record<InstanceSettingKey, string> = {
	GENERAL: "generalSetting",
	STORAGE: "storageSetting",
	MEMO_RELATED: "memoRelatedSetting",
	TAGS: "tagsSetting",
	NOTIFICATION: "notificationSetting",
	AI: "aiSetting",
	ACCESS: "accessSetting"
};
