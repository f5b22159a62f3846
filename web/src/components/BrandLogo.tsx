import { Link } from 'react-router-dom';

/** The hall mark of 站点展厅: a pediment over three columns, as in the favicon. */
export function BrandMark({ size = 32 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 32 32" aria-hidden="true" focusable="false">
      <defs>
        <linearGradient id="sitehall-mark" x1="0" y1="0" x2="1" y2="1">
          <stop offset="0" stopColor="#6366f1" />
          <stop offset="1" stopColor="#4338ca" />
        </linearGradient>
      </defs>
      <rect width="32" height="32" rx="8" fill="url(#sitehall-mark)" />
      <path
        d="M7 13.5 16 8l9 5.5"
        fill="none"
        stroke="#fff"
        strokeWidth="2.2"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
      <path d="M10 14.5v8M16 14.5v8M22 14.5v8" stroke="#fff" strokeWidth="2.2" strokeLinecap="round" />
      <path d="M7.5 24.5h17" stroke="#fff" strokeWidth="2.2" strokeLinecap="round" />
    </svg>
  );
}

export function BrandLogo() {
  return (
    <Link to="/" className="brand-logo" aria-label="站点展厅 首页">
      <BrandMark />
      <span className="brand-logo__text">站点展厅</span>
    </Link>
  );
}
