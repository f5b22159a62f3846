import { Card, Col, Row, Skeleton } from 'antd';

/** A detail page while it loads: the main column and the side column, as the page will lay them out. */
export function DetailSkeleton({ gutter = 16 }: { gutter?: number }) {
  return (
    <Row gutter={[gutter, gutter]}>
      <Col xs={24} lg={16}>
        <Card>
          <Skeleton active paragraph={{ rows: 8 }} />
        </Card>
      </Col>
      <Col xs={24} lg={8}>
        <Card>
          <Skeleton active paragraph={{ rows: 5 }} />
        </Card>
      </Col>
    </Row>
  );
}
