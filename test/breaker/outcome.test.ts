import { describe, expect, it } from "vitest";
import { summarizeOutcome } from "../../breaker/outcome.js";

describe("summarizeOutcome: 'nothing found' texts", () => {
  it.each(["No results found.", "No company found matching 'Acme'", "None", "not found", "0 results", "Could not find that file."])(
    "reads %j as empty",
    (output) => {
      expect(summarizeOutcome({ output }).kind).toBe("empty");
    },
  );

  it.each(["Normal operation", "Nov 3: 12 orders shipped", "Nonetheless, 3 rows matched", `No ${"x ".repeat(150)}`])(
    "reads %j as a result",
    (output) => {
      expect(summarizeOutcome({ output }).kind).toBe("ok");
    },
  );
});

describe("summarizeOutcome: failures and misses in other languages", () => {
  it.each([
    "错误：数据库连接失败",
    "失敗しました: ファイルが存在しません",
    "エラー: 権限がありません",
    "오류: 요청을 처리할 수 없습니다",
    "Fehler: Datei nicht lesbar",
    "Erreur : accès refusé au dossier",
    "No se pudo completar la operación",
    "Erro: token inválido",
    "Ошибка: доступ запрещён",
  ])("reads %j as a failure", (output) => {
    expect(summarizeOutcome({ output }).kind).toBe("error");
  });

  it.each(["没有找到相关结果", "未找到匹配的记录", "該当するデータが見つかりません", "Keine Ergebnisse gefunden.", "Aucun résultat pour « acme »", "No se encontraron resultados", "Nenhum resultado encontrado", "Ничего не найдено"])(
    "reads %j as empty",
    (output) => {
      expect(summarizeOutcome({ output }).kind).toBe("empty");
    },
  );

  it.each(["订单已发货，预计周三送达", "Fehlerfreie Übertragung abgeschlossen", "Erreurs corrigées : 3", "Ошибками занимается команда поддержки, 2 тикета открыты", "Errores comunes en SQL: una guía de 12 páginas sobre consultas"])(
    "reads %j as a result",
    (output) => {
      expect(summarizeOutcome({ output }).kind).toBe("ok");
    },
  );
});
