/** Reasons an archive or a file inside an upload is refused. {name} is the entry path. */
export const archiveMessages = {
  notArchive: '文件不是有效的压缩包，或压缩包已损坏',
  corrupt: '压缩包已损坏或不完整',
  encrypted: '不支持加密或有密码保护的压缩包',
  emptyArchive: '压缩包为空',
  /**
   * {names}: an upload whose every file was skipped as system litter (.DS_Store, __MACOSX/) or as a
   * type the settings skip, with nothing left to publish.
   */
  onlySkipped: '没有可发布的网站文件：{names} 是系统文件或不支持的类型，已被跳过',
  unsupportedMethod: '压缩包使用了不支持的压缩方式',
  /** {n}: entries, folders included (an archive's listing counts both). */
  tooManyEntries: '压缩包内的条目（文件和文件夹）数量超过限制。最多允许 {n} 个',
  /** {size} */
  tooLargeUncompressed: '压缩包解压后的总大小超过限制。最大允许：{size}',
  /** {name} */
  pathTraversal: '文件路径不安全："{name}"',
  /** {name} */
  notRegularFile: '压缩包包含符号链接或特殊文件："{name}"',
  /** {name} */
  badName: '文件名包含非法字符："{name}"',
  /** {name}, the invisible characters shown as \u escapes */
  invisibleName: '文件名包含零宽字符或文字方向控制符，看到的名字与实际不同："{name}"',
  /** {name} */
  duplicateName: '存在重复或仅大小写不同的文件名："{name}"',
  /** {name} */
  fileFolderClash: '同一路径既是文件又是文件夹："{name}"',
  overlapping: '压缩包结构异常（文件数据重叠）',
  entryCountMismatch: '压缩包结构异常（目录中的文件数与记录的不一致）',
  sizeMismatch: '压缩包内文件的实际大小与声明不符',
  /** {name} */
  tooDeep: '文件夹层级过深："{name}"',
  /** {name} */
  nameTooLong: '文件名过长："{name}"',
  /** {name} */
  typeMismatch: '文件内容与扩展名不符："{name}"',
  /** {name}: a text file saved as UTF-16 (Windows Notepad's "Unicode"), which the checks do not read. */
  utf16Text: '文件 "{name}" 是 UTF-16 编码的文本，请在编辑器中另存为 UTF-8 编码后再上传',
  /** {names} {list}: every file of an unknown type, when the settings refuse them. */
  entryTypeNotAllowed: '不支持的文件类型：{names}。支持的格式：{list}',
  /** {name} {size} */
  oversizedFile: '文件 "{name}" 大小超过限制。最大允许：{size}',
  /** {names}: every such file of the upload, by extension or by content. */
  executable: '不接受可执行文件、安装程序或服务器端脚本：{names}',
  /** {n}: after the first names of a long list. */
  moreNames: '等 {n} 个文件',
  /** {n}: files stored and served only as downloads (the uploader's and reviewer's notice). */
  downloadOnlyFiles: '{n} 个文件仅供下载，不作为网页内容',
  archiveRequired: '上传类型为压缩包时，请只选择一个 .zip、.rar 或 .7z 文件',
  extractTimeout: '解压超时，压缩包过大或过于复杂',
  extractFailed: '解压失败，请检查压缩包',
  processTimeout: '文件处理超时，请稍后重试',
} as const;
