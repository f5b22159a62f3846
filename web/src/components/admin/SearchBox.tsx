import { Input } from 'antd';
import { useEffect, useState } from 'react';

/**
 * The search field of an admin list: typed freely, applied (trimmed) on Enter or 搜索. When the
 * address changes the applied search (Back, Forward, a link), the field shows it.
 */
export function SearchBox({
  value,
  label,
  placeholder,
  onSearch,
}: {
  value: string;
  label: string;
  placeholder: string;
  onSearch: (text: string) => void;
}) {
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  return (
    <Input.Search
      className="admin-toolbar__search"
      placeholder={placeholder}
      aria-label={label}
      allowClear
      value={text}
      maxLength={100}
      onChange={(event) => setText(event.target.value)}
      onSearch={(typed) => onSearch(typed.trim())}
      enterButton="搜索"
    />
  );
}
